"""BFCL v4 data as bfcl-eval ships it: questions with function docs, and possible answers."""

from __future__ import annotations

import functools
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path

from evalui.benchmarks.bfcl.scoring.official import INSTALL_HINT, BfclUnavailable
from evalui.benchmarks.bfcl.scoring.single_turn import (
    AGENTIC_CATEGORIES,
    ALL_CATEGORIES,
    FORMAT_SENSITIVITY_CATEGORIES,
    MULTI_TURN_CATEGORIES,
    RELEVANCE_CATEGORIES,
)
from evalui.errors import InputError

VERSION_PREFIX = "BFCL_v4"


@dataclass(frozen=True)
class BfclEntry:
    id: str
    category: str
    question: list  # turns of chat messages, as the dataset stores them
    functions: list[dict]
    possible_answer: list[dict] | None  # multi-turn: the gold call strings, one list per turn
    # Multi-turn only: the backends' starting state, their classes, and held-out docs by turn.
    initial_config: dict = field(default_factory=dict)
    involved_classes: tuple[str, ...] = ()
    missed_function: dict = field(default_factory=dict)

    def user_messages(self) -> list[dict]:
        """The single-turn conversation: the first (and only) turn's messages."""
        return list(self.question[0]) if self.question else []


def bfcl_data_dir() -> Path:
    """bfcl-eval's bundled data folder, found without importing the package's code."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise BfclUnavailable(INSTALL_HINT)
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def check_category(category: str) -> str:
    if category not in ALL_CATEGORIES:
        raise InputError(f"unknown BFCL category {category!r}; choose from: {', '.join(ALL_CATEGORIES)}")
    return category


def _read_json_lines(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@functools.lru_cache(maxsize=32)
def load_category(category: str) -> tuple[BfclEntry, ...]:
    """All entries of one category, in dataset order."""
    check_category(category)
    if category in MULTI_TURN_CATEGORIES:
        from evalui.benchmarks.bfcl.multi_turn.data import load_multi_turn_category

        return load_multi_turn_category(category)
    if category in AGENTIC_CATEGORIES:
        from evalui.benchmarks.bfcl.agentic.data import load_agentic_category

        return load_agentic_category(category)
    if category in FORMAT_SENSITIVITY_CATEGORIES:
        return _load_format_sensitivity()
    data_dir = bfcl_data_dir()
    questions = _read_json_lines(data_dir / f"{VERSION_PREFIX}_{category}.json")
    answers: dict[str, list] = {}
    if category not in RELEVANCE_CATEGORIES:
        for record in _read_json_lines(data_dir / "possible_answer" / f"{VERSION_PREFIX}_{category}.json"):
            answers[record["id"]] = record["ground_truth"]
    return tuple(
        BfclEntry(
            id=q["id"],
            category=category,
            question=q["question"],
            functions=q["function"],
            possible_answer=answers.get(q["id"]) if category not in RELEVANCE_CATEGORIES else None,
        )
        for q in questions
    )


def _load_format_sensitivity() -> tuple[BfclEntry, ...]:
    """The 200 official entries in each of the 26 configurations (5,200, entry by entry), with the
    ids, functions and answers ``bfcl evaluate`` pairs them with: its own loaders, aligned by index."""
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()
    from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry

    category = FORMAT_SENSITIVITY_CATEGORIES[0]
    prompts = load_dataset_entry(category, include_prereq=False, include_language_specific_hint=False)
    answers = load_ground_truth_entry(category)
    if len(prompts) != len(answers) or any(not p["id"].endswith(":" + a["id"]) for p, a in zip(prompts, answers)):
        raise ValueError("bfcl-eval's format-sensitivity entries and answers do not line up")
    return tuple(BfclEntry(id=p["id"], category=category, question=p["question"], functions=p["function"],
                           possible_answer=a["ground_truth"]) for p, a in zip(prompts, answers))


@functools.lru_cache(maxsize=32)
def entries_by_id(category: str) -> dict[str, BfclEntry]:
    """The category's entries by id (shared: callers only read it)."""
    return {entry.id: entry for entry in load_category(category)}


def entry_of(category: str, entry_id: str) -> BfclEntry:
    """The entry a stored sample was asked from. A store that holds an id the data does not (tampered,
    or written with other data) is refused in a sentence, not with a bare KeyError."""
    entry = entries_by_id(check_category(category)).get(entry_id)
    if entry is None:
        raise InputError(f"BFCL's {category} data has no entry {entry_id!r}")
    return entry


def stored_entry(sample) -> BfclEntry | None:
    """The entry a stored sample (any epoch of it: ``multi_turn_base_0#e2``) was asked from; None
    when the data has no such entry."""
    from evalui.scanners.context import own_id

    return entries_by_id(sample.group).get(own_id(sample))


def category_of_id(entry_id: str) -> str | None:
    """Category encoded in an entry id such as ``live_simple_12-5-3`` or ``simple_python_7``."""
    stem = entry_id.split(":")[0]
    for category in sorted(ALL_CATEGORIES, key=len, reverse=True):
        if stem.startswith(category + "_"):
            return category
    return None
