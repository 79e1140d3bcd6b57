"""The agentic categories as bfcl-eval loads them: questions (scored), memory prereq conversations
(played first, never scored) and the ground truth.

``load_dataset_entry(category)`` renames the shared ids per category (``memory_0-customer-0`` →
``memory_kv_0-customer-0``, ``web_search_0`` → ``web_search_no_snippet_0``), adds the agentic answer
format's system prompt, the backend class and the function docs, and lists each memory scenario's
prereq conversations (``depends_on``, in order). The ground truth keeps the original ids and is
aligned with the questions by position, as ``bfcl evaluate`` aligns them.
"""

from __future__ import annotations

import functools

from evalui.benchmarks.bfcl.data import BfclEntry


def _official_entries(category: str) -> tuple[list[dict], list[dict]]:
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()  # sets BFCL_PROJECT_ROOT before bfcl_eval.utils is imported
    from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry

    return load_dataset_entry(category), load_ground_truth_entry(category)


def _entry(raw: dict, category: str, answer: list | None) -> BfclEntry:
    return BfclEntry(id=raw["id"], category=category, question=raw["question"], functions=raw["function"],
                     possible_answer=answer, involved_classes=tuple(raw["involved_classes"]),
                     initial_config={"scenario": raw["scenario"]} if "scenario" in raw else {})


@functools.lru_cache(maxsize=8)
def _loaded(category: str) -> tuple[tuple[BfclEntry, ...], dict[str, tuple[BfclEntry, ...]]]:
    raw_entries, truth = _official_entries(category)
    questions = [raw for raw in raw_entries if "prereq" not in raw["id"]]
    if len(questions) != len(truth):
        raise ValueError(f"{category}: {len(questions)} questions but {len(truth)} ground-truth lines")
    prereqs: dict[str, list[BfclEntry]] = {}
    for raw in raw_entries:
        if "prereq" in raw["id"]:
            prereqs.setdefault(raw["scenario"], []).append(_entry(raw, category, None))
    for chain in prereqs.values():  # each one depends on every earlier one: play them in that order
        chain.sort(key=lambda e: len(next(r for r in raw_entries if r["id"] == e.id)["depends_on"]))
    return (tuple(_entry(raw, category, record["ground_truth"]) for raw, record in zip(questions, truth)),
            {scenario: tuple(chain) for scenario, chain in prereqs.items()})


def load_agentic_category(category: str) -> tuple[BfclEntry, ...]:
    """The category's questions, in dataset order (prereq conversations apart)."""
    return _loaded(category)[0]


def prereq_chain(category: str, scenario: str) -> tuple[BfclEntry, ...]:
    """A memory scenario's prereq conversations for this category's backend, in the order they run."""
    return _loaded(category)[1].get(scenario, ())


def scenario_of(entry: BfclEntry) -> str | None:
    return entry.initial_config.get("scenario")
