"""Two runs side by side: their samples bucketed fixed / broken / both wrong / both right (or all of
them), narrowed on request to those whose verdicts or answers differ, and one sample's tool-call
sequences aligned (difflib's longest-matching-blocks alignment, rather than a hand-written one).
No gradio, no HTML (evalui.viewer.pair_render draws it)."""

from __future__ import annotations

import difflib
import json

from evalui.viewer import data, messages
from evalui.viewer.inspector_data import prediction_text

BUCKETS = ("fixed", "broken", "both_wrong", "both_right")
ALL = "all"  # every paired sample: with "differences only", every sample the two runs disagree on
CHOICES = (ALL, *BUCKETS)
_PASSES = {"correct": True, "wrong": False, "error": False}  # an endpoint error never passes
READ_CHUNK = 200  # samples read in full at a time to compare answers (each holds its transcript)


def buckets(verdicts_a: dict[str, str], verdicts_b: dict[str, str]) -> dict[str, list[str]]:
    """Sample ids in both runs with an outcome in each (correct / wrong / error), by bucket, in A's order."""
    found: dict[str, list[str]] = {name: [] for name in BUCKETS}
    for sample_id, verdict in verdicts_a.items():
        a, b = _PASSES.get(verdict), _PASSES.get(verdicts_b.get(sample_id, ""))
        if a is None or b is None:
            continue
        name = ("both_right" if b else "broken") if a else ("fixed" if b else "both_wrong")
        found[name].append(sample_id)
    return found


def counted(found: dict[str, list[str]]) -> dict[str, int]:
    """How many samples each choice holds (``all`` included)."""
    return {ALL: sum(len(ids) for ids in found.values()), **{name: len(found[name]) for name in BUCKETS}}


def chosen(found: dict[str, list[str]], bucket: str, order: list[str]) -> list[str]:
    """The ids of ``bucket`` (``all``: of every bucket, in ``order``)."""
    if bucket != ALL:
        return list(found[bucket])
    every = {i for ids in found.values() for i in ids}
    return [i for i in order if i in every]


def _read(store, exp_id: str, ids: list[str]) -> dict:
    if hasattr(store, "samples_by_id"):
        return store.samples_by_id(exp_id, ids)
    return {i: s for i in ids if (s := data.sample_of(store, exp_id, i)) is not None}


def differing(store, benchmark: str, a_id: str, b_id: str, ids: list[str], verdicts_a: dict[str, str],
              verdicts_b: dict[str, str]) -> list[str]:
    """The ids whose verdicts differ, or whose answers read differently (as the benchmark renders
    them, so the same call sent with other spacing is the same answer). Only the samples with equal
    verdicts are read, a chunk at a time."""
    same = [i for i in ids if verdicts_a.get(i) == verdicts_b.get(i)]
    other_answer: set[str] = set()
    for start in range(0, len(same), READ_CHUNK):
        chunk = same[start:start + READ_CHUNK]
        first, second = _read(store, a_id, chunk), _read(store, b_id, chunk)
        for i in chunk:
            answers = [prediction_text(benchmark, s.prediction) if s is not None else None
                       for s in (first.get(i), second.get(i))]
            if answers[0] != answers[1]:
                other_answer.add(i)
    same_set = set(same)
    return [i for i in ids if i not in same_set or i in other_answer]


def call_text(call: dict) -> str:
    """``name(a=1, b="x")``: a call as a person writes it, its JSON arguments unpacked (a model's
    arguments that are not a JSON object are shown as it sent them)."""
    name, arguments = str(call.get("name", "")), call.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return f"{name}({arguments})"
    if not isinstance(arguments, dict):
        return f"{name}({json.dumps(arguments, ensure_ascii=False, default=str)})"
    return f"{name}({', '.join(f'{k}={json.dumps(v, ensure_ascii=False, default=str)}' for k, v in arguments.items())})"


def aligned_calls(calls_a: list[dict], calls_b: list[dict]) -> list[dict]:
    """Rows {a, b, a_text, b_text, mark}: ``a``/``b`` the compared signatures (keys sorted),
    ``a_text``/``b_text`` the calls as written (None where a run has none); mark is same, changed
    (both called, differently), only_a or only_b."""
    signatures_a = [messages.call_signature(c) for c in calls_a]
    signatures_b = [messages.call_signature(c) for c in calls_b]
    rows = []

    def row(k_a, k_b, mark):
        return {"a": None if k_a is None else signatures_a[k_a], "b": None if k_b is None else signatures_b[k_b],
                "a_text": None if k_a is None else call_text(calls_a[k_a]),
                "b_text": None if k_b is None else call_text(calls_b[k_b]), "mark": mark}

    matcher = difflib.SequenceMatcher(a=signatures_a, b=signatures_b, autojunk=False)
    for tag, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        if tag == "equal":
            rows += [row(x, y, "same") for x, y in zip(range(a_start, a_end), range(b_start, b_end), strict=True)]
            continue
        for k in range(max(a_end - a_start, b_end - b_start)):
            x = a_start + k if a_start + k < a_end else None
            y = b_start + k if b_start + k < b_end else None
            rows.append(row(x, y, "changed" if x is not None and y is not None else "only_a" if x is not None
                            else "only_b"))
    return rows
