"""Scanners of the replies themselves: endpoint errors, refusals, empty, truncated and undecodable replies."""

from __future__ import annotations

import re

from evalui.core import registry
from evalui.scanners.base import (
    INVALID,
    WARNING,
    ScanContext,
    excerpt,
    failed,
    final_step,
    final_text,
    finding,
    judged,
    normalise,
    steps_of,
    verdict_of,
)

# Error kinds that are not the environment's: a cancelled run waits for its resume.
_NOT_ERRORS = ("cancelled:",)


def endpoint_error(sample, context: ScanContext) -> list[dict]:
    """``invalid``: the sample failed for good before it could be judged (HTTP 5xx or 429 after the
    retries, a timeout, a dropped connection, an unreadable response, a crashed agent or task). The
    model never answered, so nothing about the model was measured; the raw score already leaves the
    sample out of its accuracy but the gate counts it as a failure, and the valid score does not."""
    error = getattr(sample, "error", None)
    if judged(sample) or not error or str(error).startswith(_NOT_ERRORS):
        return []
    kind = str(error).split(":", 1)[0]
    where = "evalui's task failed" if kind == "task_error" else "the endpoint failed"
    return [finding(INVALID, f"{where} for good ({kind}): {excerpt(error)}")]


# Openers of a refusal, matched on the first sentences of a reply (normalised: lower case,
# straight quotes). Kept narrow: "I can't find" is an answer, "I can't help with that" a refusal.
_CANNOT = r"(?:can ?not|can't|won't|will not|am unable to|am not able to|am not allowed to|must decline to)"
_REFUSALS = re.compile("|".join((
    rf"\bi(?:'m| am) (?:sorry|afraid)\b[^.!?]{{0,60}}\bi {_CANNOT}\b",
    rf"\bi {_CANNOT} (?:help|assist|comply|provide|do that|fulfil|fulfill|complete|answer|support|engage)\b",
    r"\bi must (?:decline|refuse)\b",
    r"\bas an ai\b[^.!?]{0,60}\b(?:can ?not|can't|unable|not able|don't have)\b",
    r"\b(?:this|that|your) request (?:violates|goes against)\b",
)))
REFUSAL_HEAD_CHARS = 400
REFUSAL_MAX_CHARS = 800  # a long reply that mentions it cannot do something is an answer, not a refusal
# "I'm sorry, but I can't find a source; FINAL ANSWER: 12" apologises and answers: not a refusal.
_COMMITS = re.compile(r"final\s*answer\s*:\s*\S", re.IGNORECASE)


def is_refusal(text: str) -> bool:
    return bool(text) and len(text) <= REFUSAL_MAX_CHARS and not _COMMITS.search(text) \
        and bool(_REFUSALS.search(normalise(text[:REFUSAL_HEAD_CHARS])))


def refusal(sample, context: ScanContext) -> list[dict]:
    """``warning``: a failed sample whose final reply declines the task. The model chose not to answer,
    so the verdict stands, but an over-cautious model (or a benign item that reads as harmful) is worth
    a look. ``invalid`` when the provider's content filter stopped a reply (``finish_reason``
    ``content_filter``): the filter, not the model, answered."""
    for position, each in enumerate(steps_of(sample)):
        if each.get("finish_reason") == "content_filter":
            return [finding(INVALID, "the provider's content filter stopped the reply", position)]
    index, step = final_step(sample)
    if not failed(sample) or (step is not None and step.get("tool_calls")):
        return []
    text = final_text(sample)
    if is_refusal(text):
        return [finding(WARNING, f"the model declined: {excerpt(text)}", index)]
    return []


def empty_reply(sample, context: ScanContext) -> list[dict]:
    """``invalid``: the final reply has neither text nor a tool call (and was not cut off: see
    ``truncated``). A model that answers nothing is almost always a serving fault (a gateway that
    dropped the content, a reasoning model whose answer went to a field the endpoint did not fill, a
    chat template that ends at once), and a checker that passes it (tau-bench's empty responses) is
    a checker bug: either way the verdict says nothing of the model."""
    if not judged(sample):
        return []
    index, step = final_step(sample)
    if step is None or step.get("tool_calls") or step.get("finish_reason") in ("length", "content_filter") \
            or step.get("note"):
        return []
    if (step.get("text") or "").strip():
        return []
    return [finding(INVALID, "the final reply is empty: no text and no tool call", index)]


def truncated(sample, context: ScanContext) -> list[dict]:
    """A reply stopped at the token cap (``finish_reason`` ``length``). ``invalid`` when it is the final
    answer of a failed sample: the answer was never finished, so the verdict measures the cap (the
    run's max_tokens or the server's default), and the sample should be run again with a larger one.
    ``warning`` when an earlier step was cut (the agent went on) or the cut answer passed anyway."""
    steps = steps_of(sample)
    cut = [i for i, step in enumerate(steps) if step.get("finish_reason") == "length"]
    if not cut or not judged(sample):
        return []
    last = len(steps) - 1
    if cut[-1] == last and failed(sample):
        return [finding(INVALID, f"the final reply was cut off at the token cap ({steps[last].get('completion_tokens') or '?'}"
                                 " completion tokens)", last)]
    where = "the final reply" if cut[-1] == last else f"{len(cut)} step(s)"
    return [finding(WARNING, f"{where} cut off at the token cap", cut[-1])]


# Function-calling error types for an answer whose calls could not be decoded (single-turn, multi-turn).
_UNDECODED = ("decode_failure", "wrong_format")
# A call as a model writes one in text (``name(…)``) or as JSON (``{"name": …}``): the answer was
# there, in a shape the decoder did not take (only whether it matches is read). Tried at every letter
# of a long word, the plain ``[A-Za-z_][\w.]*\s*\(`` reread the rest of the word each time: 148 s for
# 120,000 letters. So a name is tried only where its run of word characters and dots starts (digits or
# non-ASCII letters before its first ASCII letter are skipped, as before), and no quantifier gives back
# what it took (nothing after it could use it): each character is read a bounded number of times.
_CALL_LIKE = re.compile(r"(?<![\w.])(?:[^\WA-Za-z_]|\.)*+[A-Za-z_][\w.]*+\s*+\("
                        r"|\{\s*+\"(?:name|function|tool)\"\s*+:")


def answer_template(benchmark: str) -> tuple[str, str] | None:
    """The template the benchmark's replies end with (its spec's ``answer_template``), if any."""
    spec = registry.find(benchmark) if benchmark else None
    return spec.answer_template if spec is not None else None


def format_failure(sample, context: ScanContext) -> list[dict]:
    """``warning``: a failed sample whose answer was there but not in the form the scorer reads: BFCL
    calls that did not decode (text that holds a call, in prompt mode or instead of native tool calls),
    or a GAIA reply without its ``FINAL ANSWER:`` template (its last line is then scored). The official
    scorers count format as part of the task, so the verdict stands; a run full of these measures the
    format more than the ability. Replies that are empty, cut off or refusals are the other scanners'."""
    if not failed(sample):
        return []
    index, step = final_step(sample)
    text = final_text(sample)
    if not text.strip() or (step or {}).get("finish_reason") == "length" or is_refusal(text):
        return []
    verdict = verdict_of(sample)
    if verdict.get("error_type") in _UNDECODED:
        if _CALL_LIKE.search(text):
            return [finding(WARNING, f"the calls did not decode ({verdict['error_type']}): {excerpt(text)}", index)]
        return []
    template = answer_template(context.benchmark)
    if template is None or verdict.get("error_type") != "wrong_answer":
        return []
    pattern, written = template
    if not re.search(pattern, text, re.IGNORECASE):
        return [finding(WARNING, f"the reply does not end with the benchmark's '{written}' template; its last line "
                                 f"was scored: {excerpt(verdict.get('model_answer') or '')}", index)]
    return []
