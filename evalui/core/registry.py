"""Every benchmark evalui knows: one line each. The CLI, the tabs, the Runs tab and resume read it.

A benchmark outside this package is added in one of three ways, each naming a ``module:attr``
(loaded by evalui.core.plugins, as the scanners are: ``module:attr.inner`` works too):

- an installed distribution's entry point in the group ``evalui.benchmarks``
  (``[project.entry-points."evalui.benchmarks"] toy = "toy_benchmark:BENCHMARK"``);
- ``EVALUI_BENCHMARKS=name=module:attr[,…]`` (the module must be importable);
- ``register()`` in the same process.

A later way overrides an earlier one of the same name, except that an entry point never replaces a
built-in benchmark: installing a package cannot silently swap what ``bfcl`` means.
"""

from __future__ import annotations

import functools
import logging

from evalui.core import plugins
from evalui.core.benchmark import Benchmark

EXTRA_ENV = "EVALUI_BENCHMARKS"
ENTRY_POINT_GROUP = "evalui.benchmarks"

BUILT_IN: dict[str, str] = {
    "bfcl": "evalui.benchmarks.bfcl.spec:BENCHMARK",
    "gaia": "evalui.benchmarks.gaia.spec:BENCHMARK",
    "aime-generate": "evalui.benchmarks.aime.spec:GENERATION",
    "aime-judge": "evalui.benchmarks.aime.spec:JUDGING",
    "aime-winrate": "evalui.benchmarks.aime.spec:WINRATE_SPEC",
}

_registered: dict[str, str] = {}
log = logging.getLogger(__name__)


def register(name: str, target: str) -> None:
    _registered[name] = target


@functools.cache
def installed() -> dict[str, str]:
    """Benchmarks that installed distributions declare. Read once per process: scanning every
    distribution takes tens of milliseconds, and the Runs tab asks for a spec per row."""
    found = {}
    for name, target in plugins.installed(ENTRY_POINT_GROUP):
        if name in BUILT_IN:
            log.warning("ignored the entry point %s = %s: %r is a built-in benchmark", name, target, name)
            continue
        found[name] = target
    return found


def targets() -> dict[str, str]:
    return {**BUILT_IN, **installed(), **plugins.from_env(EXTRA_ENV), **_registered}


def names() -> list[str]:
    return list(targets())


def extra_names() -> list[str]:
    """Benchmarks that are not built in: they get the generic CLI command and tab."""
    return [name for name in targets() if name not in BUILT_IN]


def get(name: str) -> Benchmark:
    target = targets().get(name)
    if target is None:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(names())}")
    # One kind of failure for callers, plugins.PluginError (an ImportError): the Runs tab shows such a
    # run without its spec.
    return plugins.load("benchmark", name, target, Benchmark, "Benchmark spec")


def find(name: str) -> Benchmark | None:
    """The benchmark's spec, or None for a stored run of a benchmark this installation cannot load
    (views of such a run show it without what its spec adds)."""
    try:
        return get(name)
    except (KeyError, ImportError, TypeError):
        return None
