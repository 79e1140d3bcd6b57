"""Scanners that look past the reply: the gold answer handed to the model, items no model solves."""

from __future__ import annotations

import re

from evalui.scanners.base import INVALID, WARNING, ScanContext, excerpt, failed, finding, judged, normalise, steps_of, \
    text_of, word_pattern

# Where a benchmark keeps the gold answer in a sample's payload (the judge's side; the task never
# sends it). Other benchmarks: the first of these keys that holds a string or a number.
TARGET_KEYS = {"gaia": ("final_answer",)}
GENERIC_TARGET_KEYS = ("target", "final_answer", "answer", "gold")
UNKNOWN_TARGETS = ("", "?", "none", "null")
# A short answer ("3", "yes", "Rome") turns up in prompts by chance; it counts only where the text
# labels it as the answer ("the answer is 3", "FINAL ANSWER: 3").
SHORT_TARGET_CHARS = 4
_LABELLED = r"answer\W{0,3}(?:is|was|:|=)?\W{0,3}"


def target_of(sample, benchmark: str) -> str | None:
    payload = getattr(sample, "payload", None) or {}
    for key in TARGET_KEYS.get(benchmark, GENERIC_TARGET_KEYS):
        value = payload.get(key)
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            continue
        text = str(value).strip()
        if normalise(text) not in UNKNOWN_TARGETS:
            return text
    return None


def _matcher(target: str) -> re.Pattern:
    plain = normalise(target)
    if len(plain) >= SHORT_TARGET_CHARS:
        return word_pattern(target)
    return re.compile(_LABELLED + r"(?<![a-z0-9])" + re.escape(plain) + r"(?![a-z0-9])")


def _prompt_texts(sample) -> list[str]:
    """What the model was given before its first reply: the request's messages, or the first step's."""
    request = getattr(sample, "request", None)
    messages = request.get("messages") if isinstance(request, dict) else None
    if not messages:
        steps = steps_of(sample)
        messages = steps[0].get("messages") if steps else []
    return [text_of(m.get("content")) for m in messages or [] if isinstance(m, dict) and m.get("role") != "assistant"]


def answer_in_context(sample, context: ScanContext) -> list[dict]:
    """The gold answer was in front of the model before it answered. ``invalid`` when the prompt itself
    holds it (a leaked item: it measures reading, not the skill). ``warning`` when a tool result (a page
    fetched, a search, a file) holds it: finding the answer is often the task (GAIA's web questions),
    but an agent that looked up the benchmark's own answer (HAL's agents on the Hub) is not; a person
    decides which. Short answers count only where the text labels them as the answer."""
    if not judged(sample):
        return []
    target = target_of(sample, context.benchmark)
    if target is None:
        return []
    pattern = _matcher(target)
    if any(pattern.search(normalise(text)) for text in _prompt_texts(sample)):
        return [finding(INVALID, f"the prompt already holds the gold answer {excerpt(target, 60)!r}", 0)]
    steps = steps_of(sample)
    for index, step in enumerate(steps[:-1]):  # a step's results are read by the steps after it
        for result in step.get("tool_results") or []:
            if isinstance(result, dict) and pattern.search(normalise(text_of(result.get("content")))):
                return [finding(WARNING, f"the tool {excerpt(result.get('name') or '?', 60)} returned the gold "
                                         f"answer {excerpt(target, 60)!r} before the model answered", index)]
    return []


UNSOLVABLE_MIN_MODELS = 3  # fewer other models failing an item says little about the item


def unsolvable(sample, context: ScanContext) -> list[dict]:
    """``warning``: this run failed the sample, and so did every stored run of at least three other
    models on the same benchmark (BFCL multi_turn_base has 27 such items of 200 over 18 models, with
    broken ground truth among them). A sign to check the item, not a proof that it is broken, so the
    verdict stands. It changes as runs are stored: ``evalui scan`` brings it up to date."""
    if not failed(sample):
        return []
    from evalui.stats.epochs import split_epoch

    own, _ = split_epoch(sample.sample_id)
    models = {m: solved for m, solved in (context.others.get(own) or {}).items() if m != context.model}
    if len(models) < UNSOLVABLE_MIN_MODELS or any(models.values()):
        return []
    return [finding(WARNING, f"every one of {len(models)} other models failed it too")]
