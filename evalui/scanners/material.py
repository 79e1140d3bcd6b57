"""What a benchmark declares about the parts of one sample, for the scanners that look for its gold answer.

A model is shown text of several kinds, and the gold answer found in each means something different:

- ``question``: the task's statement. The answer there is a leaked item: the sample measures reading,
  not the skill, so it is ``invalid``.
- ``guarded``: other material the benchmark says must never hold the answer (its instructions, the
  fields of a record handed to an agent): also ``invalid``.
- ``suspect``: the task's own material where the benchmark finds the answer suspicious (a page that
  names the benchmark's own answer sheet), with its reason: a ``warning``, so a person decides.
- ``material``: the task's own material (an attached file, a tool's result in a search task). Finding
  the answer there is the task: never a finding.
- ``judge``: a judge's prompt and its reference. The judge is not the model under test: never read.

A benchmark declares these through its spec (evalui.core.benchmark.Benchmark.material), a function
of a stored sample returning ``Material``; the run core hands that function to the scanners in the
scan context (evalui.scanners.base.ScanContext.material), as scanners may not import benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass

QUESTION, GUARDED, SUSPECT, MATERIAL, JUDGE = "question", "guarded", "suspect", "material", "judge"
KINDS = (QUESTION, GUARDED, SUSPECT, MATERIAL, JUDGE)


@dataclass(frozen=True)
class Part:
    """One text the model (or its judge) was shown. ``where`` names it in a finding; ``step`` is the
    trajectory step it came before (0: the first prompt; a tool result of step 2 comes before step 3,
    and is given as 2, the step that called the tool); ``reason`` says why a ``suspect`` or ``guarded``
    part must not hold the answer."""

    kind: str
    where: str
    text: str
    step: int = 0
    reason: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"a sample's part is one of {', '.join(KINDS)}, not {self.kind!r}")


@dataclass(frozen=True)
class Material:
    """A sample's gold answer and its parts. ``target`` None: there is no answer for the model to find
    (hidden answers, or a run whose model is itself a judge), so nothing is looked for."""

    target: str | None
    parts: tuple[Part, ...] = ()
