"""The four multi-turn categories, loaded by bfcl-eval's own loader (function docs filled in,
held-out docs of miss_func taken out), with their gold call strings."""

from __future__ import annotations

from evalui.benchmarks.bfcl.data import BfclEntry


def load_multi_turn_category(category: str) -> tuple[BfclEntry, ...]:
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()  # sets BFCL_PROJECT_ROOT before bfcl_eval.utils is imported
    from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry

    gold = {record["id"]: record["ground_truth"] for record in load_ground_truth_entry(category)}
    return tuple(
        BfclEntry(id=raw["id"], category=category, question=raw["question"], functions=raw["function"],
                  possible_answer=gold[raw["id"]], initial_config=raw.get("initial_config") or {},
                  involved_classes=tuple(raw["involved_classes"]), missed_function=raw.get("missed_function") or {})
        for raw in load_dataset_entry(category)
    )


def checker_entry(entry: BfclEntry) -> dict:
    """The entry as evalui.benchmarks.bfcl.scoring.multi_turn.score_multi_turn reads it."""
    return {"id": entry.id, "function": entry.functions, "involved_classes": entry.involved_classes,
            "initial_config": entry.initial_config, "missed_function": entry.missed_function}
