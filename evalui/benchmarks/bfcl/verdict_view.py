"""What the viewer's transcript shows of a multi-turn verdict beyond the checker's message: the turn
the check failed at, counted from 1 as every view counts turns (the checker counts from 0, and the
stored verdict keeps its count), and, where the model's backend state differs from the gold state,
each differing attribute with the model's value and the gold's: the same differences the per-turn
view (turns.py, /bfcl_turns) shows, found the same way."""

from __future__ import annotations

from evalui.benchmarks.bfcl.turns import turns_of
from evalui.core.benchmark import Said, VerdictTable, VerdictView

COLUMNS = (Said("viewer.state.attribute"), Said("viewer.state.model"), Said("viewer.state.gold"))


def _differences(sample) -> list[tuple[int, dict]]:
    """(turn index from 0, class -> attribute -> {"model", "ground_truth"}) for each turn whose state differs."""
    from evalui.benchmarks.bfcl.data import stored_entry

    verdict = sample.verdict or {}
    if not verdict.get("state_differences"):
        return []
    entry = stored_entry(sample)
    if entry is None:  # the data no longer has the entry: the verdict alone says where
        turn = verdict.get("failed_turn")
        return [(turn, verdict["state_differences"])] if isinstance(turn, int) else []
    return [(turn["index"], turn["differences"]) for turn in turns_of(sample, entry) if turn["differences"]]


def render_verdict(sample) -> VerdictView:
    turn = (sample.verdict or {}).get("failed_turn")
    record = {"failed_turn": Said("viewer.turn", {"n": turn + 1})} if isinstance(turn, int) else {}
    tables = tuple(
        VerdictTable(Said("viewer.state_differs", {"turn": index + 1}), COLUMNS,
                     tuple((str(name), str(values.get("model", "")), str(values.get("ground_truth", "")))
                           for name, values in attributes.items()),
                     subject=str(class_name))
        for index, differences in _differences(sample) for class_name, attributes in differences.items())
    return VerdictView(record, tables)
