"""Scanners that look past the reply: the gold answer handed to the model, items no model solves."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from evalui.core.benchmark import TARGET_KEYS, Target
from evalui.scanners.base import (
    INVALID,
    WARNING,
    ScanContext,
    excerpt,
    failed,
    finding,
    judged,
    normalise,
    steps_of,
    text_of,
)
from evalui.scanners.material import GUARDED, QUESTION, SUSPECT, Material, Part

UNKNOWN_TARGETS = ("", "?", "none", "null")
# A short answer ("3", "yes", "Rome") turns up in prompts by chance; it counts only where the text
# labels it as the answer ("the answer is 3", "FINAL ANSWER: 3").
SHORT_TARGET_CHARS = 4
_LABELLED = r"answer\W{0,3}(?:is|was|:|=)?\W{0,3}"
UNDECLARED_TOOL_REASON = ("finding it is often the task, but an agent that looked up the benchmark's own answer is "
                          "not; the benchmark does not say which its tools are")



def own_id(sample) -> str:
    """The sample's id whatever its epoch: the stored sample's own, else read from its key."""
    own = getattr(sample, "own_id", None)
    if isinstance(own, str):
        return own
    from evalui.stats.epochs import split_epoch

    return split_epoch(sample.sample_id)[0]

def known_target(value) -> str | None:
    """``value`` as a gold answer's text, or None where it is none (a hidden answer, not a string or number)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = str(value).strip()
    return None if normalise(text) in UNKNOWN_TARGETS else text


def target_of(sample, target: Callable[[Any], Target | None] | None = None) -> str | None:
    """The gold answer the scanners look for: the benchmark's own target (``target``, its spec's),
    else the first answer-like payload key (evalui.core.benchmark.TARGET_KEYS) that holds a string
    or a number, for a stored run of a benchmark this installation does not have."""
    if target is not None:
        found = target(sample)
        return known_target(found.value) if found is not None else None
    payload = getattr(sample, "payload", None) or {}
    for key in TARGET_KEYS:
        text = known_target(payload.get(key))
        if text is not None:
            return text
    return None


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")  # word_pattern's [a-z0-9]


class WholeWord:
    """``word_pattern(phrase).search`` without compiling a regular expression: each sample has a
    target of its own, and compiling one per sample was most of a run's scan (bench/RESULTS.md,
    "Engine phases"). The phrase (normalised) is found as a literal, and an occurrence counts when
    no letter or digit touches it on either side."""

    __slots__ = ("phrase",)

    def __init__(self, phrase: str):
        self.phrase = normalise(phrase)

    def search(self, text: str) -> bool:
        phrase, size = self.phrase, len(self.phrase)
        at = text.find(phrase)
        while at >= 0:
            end = at + size
            if (at == 0 or text[at - 1] not in _WORD_CHARS) and (end == len(text) or text[end] not in _WORD_CHARS):
                return True
            at = text.find(phrase, at + 1)
        return False


def _matcher(target: str) -> re.Pattern | WholeWord:
    plain = normalise(target)
    if len(plain) >= SHORT_TARGET_CHARS:
        return WholeWord(target)
    return re.compile(_LABELLED + r"(?<![a-z0-9])" + re.escape(plain) + r"(?![a-z0-9])")


def prompt_texts(sample) -> list[str]:
    """What the model was given before its first reply: the request's messages, or the first step's."""
    request = getattr(sample, "request", None)
    messages = request.get("messages") if isinstance(request, dict) else None
    if not messages:
        steps = steps_of(sample)
        messages = steps[0].get("messages") if steps else []
    return [text_of(m.get("content")) for m in messages or [] if isinstance(m, dict) and m.get("role") != "assistant"]


def undeclared_material(sample, target: Callable[[Any], Target | None] | None = None) -> Material:
    """The reading of a benchmark that declares nothing: it cannot tell the question from what the task
    attached, so the whole prompt counts as the question, and every tool result read before the last
    reply is suspect."""
    parts = [Part(QUESTION, "the prompt", text) for text in prompt_texts(sample)]
    for index, step in enumerate(steps_of(sample)[:-1]):  # a step's results are read by the steps after it
        for result in step.get("tool_results") or []:
            if isinstance(result, dict):
                parts.append(Part(SUSPECT, f"the tool {excerpt(result.get('name') or '?', 60)}",
                                  text_of(result.get("content")), index, UNDECLARED_TOOL_REASON))
    return Material(target_of(sample, target), tuple(parts))


def material_of(sample, context: ScanContext) -> Material:
    if context.material is None:
        return undeclared_material(sample, context.target)
    declared = context.material(sample)
    if not isinstance(declared, Material):
        raise TypeError(f"the {context.benchmark} benchmark's material is not a Material")
    return declared


def answer_in_context(sample, context: ScanContext) -> list[dict]:
    """The gold answer was in front of the model before it answered, where the benchmark says it must not
    be. ``invalid`` when the question itself holds it (a leaked item: it measures reading, not the
    skill), or material the benchmark guards. The task's own material (an attached file, a search
    task's pages, a judge's reference) never makes a sample invalid: finding the answer there is the
    task; it is a ``warning``, with the benchmark's reason, only where the benchmark declares such
    material suspect (a page that names its own answer sheet). A judge's prompt is never read: the
    judge is not the model under test. Short answers count only where the text labels them as the
    answer. A benchmark that declares nothing has its whole prompt read as the question and its tool
    results as suspect."""
    if not judged(sample):
        return []
    declared = material_of(sample, context)
    target = known_target(declared.target)
    if target is None:
        return []
    pattern = _matcher(target)
    quoted = repr(excerpt(target, 60))
    # The most severe part first: a leaked question outweighs a suspect page read later.
    for kind in (QUESTION, GUARDED, SUSPECT):
        for part in declared.parts:
            if part.kind == kind and pattern.search(normalise(text_of(part.text))):
                return [finding(WARNING if kind == SUSPECT else INVALID, _message(part, quoted), part.step)]
    return []


def _message(part: Part, quoted: str) -> str:
    where = excerpt(part.where, 80)
    because = f": {excerpt(part.reason, 200)}" if part.reason else ""
    if part.kind == QUESTION:
        return f"{where} already holds the gold answer {quoted}"
    if part.kind == GUARDED:
        return f"{where} holds the gold answer {quoted}{because}"
    return f"{where} held the gold answer {quoted} before the model answered{because}"


UNSOLVABLE_MIN_MODELS = 3  # fewer other models failing an item says little about the item


def unsolvable(sample, context: ScanContext) -> list[dict]:
    """``warning``: this run failed the sample, and so did every stored run of at least three other
    models on the same benchmark (BFCL multi_turn_base has 27 such items of 200 over 18 models, with
    broken ground truth among them). A sign to check the item, not a proof that it is broken, so the
    verdict stands. It changes as runs are stored: ``evalui scan`` brings it up to date."""
    if not failed(sample):
        return []
    own = own_id(sample)
    models = {m: solved for m, solved in (context.others.get(own) or {}).items() if m != context.model}
    if len(models) < UNSOLVABLE_MIN_MODELS or any(models.values()):
        return []
    return [finding(WARNING, f"every one of {len(models)} other models failed it too")]
