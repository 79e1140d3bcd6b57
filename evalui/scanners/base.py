"""What a scanner is and returns, and the reading of a stored sample every scanner shares.

A finding is ``{"scanner", "severity", "message", "step"}`` (evalui.core.record.Finding, a TypedDict:
the same type the run record validates): ``step`` is the 0-based index of the trajectory step it is
about (null for the sample as a whole). A scanner's function returns findings without the scanner's
name (``finding()``); evalui.scanners.registry.scan_sample names and checks them. Severities:

- ``invalid``: the verdict measures the environment, not the model (an endpoint that failed, a tool
  that crashed, a reply cut off by a token cap). The sample is left out of the valid-sample score.
- ``warning``: the verdict stands (it is the model's doing, or the official rules count it), but a
  reader should know (a refusal, a loop, the step limit, an item every other model fails).
- ``info``: worth showing, never counted.

A sample is read as the store keeps it (evalui.store.rows.Sample, or any object with its
attributes): ``sample_id``, ``group``, ``stage``, ``payload``, ``request``, ``response``,
``correct``, ``verdict``, ``error`` and ``trajectory`` (a list of step dicts).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from evalui.core.record import Finding, Severity  # noqa: F401  (Finding: re-exported for scanners added outside evalui)

INVALID: Final = "invalid"
WARNING: Final = "warning"
INFO: Final = "info"
SEVERITIES: tuple[Severity, ...] = (INVALID, WARNING, INFO)
EXCERPT_CHARS = 120
# The most characters of one text (a reply, a prompt message, a tool result) a scanner reads. Scanners
# run at every run's end, resume, rescore and scan, over text a model or a web page wrote: the cap
# bounds their cost whatever a pattern does. It is above the 256 KiB a run keeps of one step's reply by
# default (evalui.run.step_limits), so a stored step is read whole; past the cap the head and the
# tail are read, as a refusal opens a reply and a final answer or call ends it.
MAX_SCANNED_CHARS = 300_000
# Neither whitespace nor a word character nor a dot: no call, template or phrase reads across it (a
# word cut at either end may read as a whole one).
_GAP = "\n[\u2026]\n"


@dataclass(frozen=True)
class ScanContext:
    """What a scanner may know beyond the sample: the run, and other models' verdicts.

    ``others``: for each sample id (epochs folded), {model: solved at least once} over the judged
    samples of the stored runs of other models on the same benchmark (the ``unsolvable`` scanner).
    ``material``: the benchmark's declaration of a sample's parts, (sample) -> evalui.scanners.material.Material
    (its spec's ``material``); None where it declares none, and the whole prompt is then the question."""

    benchmark: str = ""
    exp_id: str = ""
    model: str = ""
    others: Mapping[str, Mapping[str, bool]] = field(default_factory=dict)
    material: Callable[[Any], Any] | None = None
    # The benchmark's target (its spec's ``target``: sample -> Target or None), read where it declares no
    # material; None: the payload's answer-like keys.
    target: Callable[[Any], Any] | None = None


# What a scanner's function returns: findings without the scanner's name, as finding() makes them (an
# added scanner's may hold anything; scan_sample turns each into a Finding).
ScanFunction = Callable[[Any, ScanContext], list[dict]]


@dataclass(frozen=True)
class Scanner:
    """A named, versioned check. ``applies_to`` names the benchmarks it reads (empty: every one);
    ``automatic`` scanners run after every run and in every ``evalui scan``; others only when named
    (an LLM scanner needs a judge endpoint). ``version`` goes into the run summary: a changed rule is
    a new version, so findings of two runs are compared only when their versions agree."""

    name: str
    version: str
    description: str
    scan: ScanFunction
    applies_to: tuple[str, ...] = ()
    automatic: bool = True

    def applies(self, benchmark: str) -> bool:
        return not self.applies_to or benchmark in self.applies_to


def finding(severity: str, message: str, step: int | None = None) -> dict:
    return {"severity": severity, "message": message, "step": step}


# Reading a stored sample ------------------------------------------------------------------------

def steps_of(sample) -> list[dict]:
    return [s for s in (getattr(sample, "trajectory", None) or []) if isinstance(s, dict)]


def verdict_of(sample) -> dict:
    verdict = getattr(sample, "verdict", None)
    return verdict if isinstance(verdict, dict) else {}


def judged(sample) -> bool:
    return getattr(sample, "stage", None) == "judged"


def failed(sample) -> bool:
    """Judged and not correct (an unscored sample, whose answer is unknown, is not a failure)."""
    return judged(sample) and not getattr(sample, "correct", None) and verdict_of(sample).get("scored") is not False


def text_of(content: Any) -> str:
    """A message's, a reply's or a tool result's content as text, at most MAX_SCANNED_CHARS of it (its
    head and its tail): strings as they are, content parts' text, else JSON."""
    text = _whole_text(content)
    if len(text) <= MAX_SCANNED_CHARS:
        return text
    head = (MAX_SCANNED_CHARS - len(_GAP)) // 2
    tail = MAX_SCANNED_CHARS - len(_GAP) - head
    return text[:head] + _GAP + text[-tail:]


def _whole_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") if isinstance(part, dict) else _whole_text(part) for part in content)
    try:
        return json.dumps(content, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(content)


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A short, one-line quote of model or tool text for a message (reports escape it when shown)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def final_step(sample) -> tuple[int, dict] | tuple[None, None]:
    steps = steps_of(sample)
    return (len(steps) - 1, steps[-1]) if steps else (None, None)


def final_text(sample) -> str:
    """The model's final reply text: the last step's, else the stored output's."""
    _, step = final_step(sample)
    if step is not None:
        return text_of(step.get("text") or "")
    response = getattr(sample, "response", None)
    return text_of(response.get("text") or "") if isinstance(response, dict) else ""


def canonical_arguments(arguments: Any) -> str:
    """Arguments as compact sorted JSON when they parse, else as written: equal calls compare equal."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return arguments.strip()
    try:
        return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return str(arguments)


def normalise(text: str) -> str:
    """Lower case, curly quotes straightened, whitespace squashed: what text matching compares."""
    return " ".join(text.replace("\u2019", "'").replace("\u2018", "'").lower().split())


def word_pattern(phrase: str) -> re.Pattern:
    """``phrase`` (normalised) as a whole word or number: not inside a longer word or number."""
    return re.compile(r"(?<![a-z0-9])" + re.escape(normalise(phrase)) + r"(?![a-z0-9])")
