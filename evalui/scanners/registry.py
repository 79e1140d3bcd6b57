"""Every scanner evalui knows, built in or added, and running them over a sample.

Like the benchmarks' registry (evalui.core.registry): a scanner outside evalui is added by
an installed distribution's entry point in the group ``evalui.scanners``, by
``EVALUI_SCANNERS=name=module:attr[,…]``, or by ``register()`` in the same process; each names an
evalui.scanners.base.Scanner, loaded by evalui.core.plugins. An added scanner never replaces a
built-in one of the same name, and one that cannot load is left out with a warning.
"""

from __future__ import annotations

import functools
import logging

from evalui.core import plugins
from evalui.core.record import Finding, Severity
from evalui.scanners import agents, context, replies
from evalui.scanners.base import INFO, SEVERITIES, ScanContext, Scanner

EXTRA_ENV = "EVALUI_SCANNERS"
ENTRY_POINT_GROUP = "evalui.scanners"
log = logging.getLogger(__name__)


def _built_in(name: str, function, applies_to: tuple[str, ...] = (), version: str = "1") -> Scanner:
    # The first line of the docstring is the description; the version is the rule's (bump it when
    # a rule changes what it finds).
    doc = " ".join((function.__doc__ or "").split())
    return Scanner(name, version, doc, function, applies_to)


@functools.cache
def built_in() -> dict[str, Scanner]:
    scanners = [
        _built_in("endpoint_error", replies.endpoint_error),
        _built_in("refusal", replies.refusal),
        _built_in("empty_reply", replies.empty_reply),
        _built_in("truncated", replies.truncated),
        _built_in("format_failure", replies.format_failure),
        _built_in("tool_error", agents.tool_error),
        _built_in("loop", agents.loop),
        _built_in("step_limit", agents.step_limit),
        # 2: reads the parts each benchmark declares (evalui.scanners.material), not the whole prompt.
        _built_in("answer_in_context", context.answer_in_context, version="2"),
        _built_in("unsolvable", context.unsolvable),
    ]
    return {s.name: s for s in scanners}


_registered: dict[str, Scanner] = {}


def register(scanner: Scanner) -> None:
    if scanner.name in built_in():
        raise ValueError(f"{scanner.name!r} is a built-in scanner")
    _registered[scanner.name] = scanner


def unregister(name: str) -> None:
    _registered.pop(name, None)


def _resolve(name: str, target: str) -> Scanner | None:
    try:
        return plugins.load("scanner", name, target, Scanner, "Scanner")
    except plugins.PluginError as exc:
        log.warning("%s", exc)  # "scanner 'name': cannot load 'target' (why)"
    except TypeError as exc:
        log.warning("scanner %r: %s", name, exc)
    return None


def scanners() -> dict[str, Scanner]:
    """Every scanner, built-in ones first, by name."""
    found = dict(built_in())
    for name, target in (*plugins.installed(ENTRY_POINT_GROUP), *plugins.from_env(EXTRA_ENV).items()):
        if name in found and name in built_in():
            log.warning("ignored the scanner %s = %s: %r is a built-in scanner", name, target, name)
            continue
        scanner = _resolve(name, target)
        if scanner is not None:
            found[name] = scanner
    for name, scanner in _registered.items():
        found[name] = scanner
    return found


def get(name: str) -> Scanner:
    found = scanners()
    if name not in found:
        raise KeyError(f"unknown scanner {name!r}; known: {', '.join(found)}")
    return found[name]


def selected(names: list[str] | None, benchmark: str) -> list[Scanner]:
    """The named scanners (KeyError for an unknown name), else every automatic one; those that apply
    to ``benchmark``."""
    chosen = [get(n) for n in names] if names else [s for s in scanners().values() if s.automatic]
    return [s for s in chosen if s.applies(benchmark)]


def scan_sample(sample, context: ScanContext, chosen: list[Scanner]) -> list[Finding]:
    """The findings of ``chosen`` scanners on one sample, in the scanners' order. A scanner that fails
    on hostile or unexpected data reports that as an ``info`` finding instead of stopping the run."""
    findings: list[Finding] = []
    for scanner in chosen:
        try:
            found = scanner.scan(sample, context) or []
        except Exception as exc:  # one scanner's bug must not lose a run's exports
            found = [{"severity": "info", "message": f"the scanner failed: {type(exc).__name__}", "step": None}]
        for item in found:
            severity: Severity = next((s for s in SEVERITIES if item.get("severity") == s), INFO)
            step = item.get("step")
            findings.append({"scanner": scanner.name, "severity": severity, "message": str(item.get("message", ""))[:500],
                             "step": step if isinstance(step, int) and not isinstance(step, bool) else None})
    return findings
