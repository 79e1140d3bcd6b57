"""What the AIME steps showed their model, sorted for the validity scanners (evalui.scanners.material).

None of the three steps has a gold answer for its model to find. The judge and the win-rate steps
ask a judge: its prompt holds each problem's stated answer because judging the problem against it
is the task, so a judged problem's ``answer`` is the judge's reference, never a leak. The generation
step shows real problems as examples, to write new ones.
"""

from __future__ import annotations

from evalui.scanners.base import text_of
from evalui.scanners.material import JUDGE, MATERIAL, Material, Part


def _shown(sample) -> list[str]:
    # The judge step asks once ("messages"); the win-rate step asks in both orders, a list each.
    request = getattr(sample, "request", None)
    lists = [value for value in request.values() if isinstance(value, list)] if isinstance(request, dict) else []
    return [text_of(m.get("content")) for messages in lists for m in messages if isinstance(m, dict)]


def judge_material(sample) -> Material:
    """The judge's prompt, with the problem's stated answer as its reference; no gold answer."""
    return Material(None, tuple(Part(JUDGE, "the judge's prompt", text) for text in _shown(sample)))


def generation_material(sample) -> Material:
    """The real problems shown as examples; a generated problem has no gold answer."""
    return Material(None, tuple(Part(MATERIAL, "the example problems", text) for text in _shown(sample)))
