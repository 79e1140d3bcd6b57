"""Real AIME problems: the reference pool for generation, and AIME 2025 for the win rate.

Both load through ``datasets`` (cached in the data folder) and fall back to evalui's own
bundled samples when the Hub cannot be reached, saying so.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import evalui
from evalui.benchmarks.aime.scoring import to_aime_integer

REFERENCE_DATASET = "TianHongZXY/aime-1983-2025"
AIME25_DATASET = "math-ai/aime25"
BUNDLED = Path(evalui.__file__).resolve().parent / "data" / "aime_sample"  # package data
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RealProblem:
    problem_id: str
    problem: str
    answer: int | None
    topic: str = ""
    source: str = ""


def _field(record: dict, *names):
    for name in names:
        for key in (name, name.capitalize(), name.upper()):
            if record.get(key) not in (None, ""):
                return record[key]
    return None


def _from_records(records, source: str, prefix: str) -> list[RealProblem]:
    problems = []
    for index, record in enumerate(records):
        text = _field(record, "problem", "question")
        if not isinstance(text, str) or not text.strip():
            continue
        identifier = _field(record, "id", "problem_id", "ID")
        year = _field(record, "year")
        number = _field(record, "problem_number", "number")
        if identifier is None:
            identifier = f"{prefix}-{year}-{number}" if year and number else f"{prefix}-{index}"
        problems.append(RealProblem(str(identifier), text.strip(), to_aime_integer(_field(record, "answer")),
                                    str(_field(record, "topic", "type") or ""), source))
    return problems


def _bundled(name: str, source: str) -> list[RealProblem]:
    with (BUNDLED / name).open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return _from_records(records, source, "bundled")


def _hub(dataset: str, split: str, cache_dir: Path | None) -> list[RealProblem]:
    from datasets import load_dataset

    rows = load_dataset(dataset, split=split, cache_dir=str(cache_dir) if cache_dir else None)
    return _from_records(rows, dataset, dataset.split("/")[-1])


def load_problems(source: str, *, dataset: str, split: str, bundled_file: str,
                  cache_dir: Path | None = None) -> tuple[list[RealProblem], str]:
    """(problems, where they came from). ``source`` is 'hub', 'bundled' or 'auto' (hub, else bundled).

    A fallback says why in the second value, which the run's summary and report record.
    """
    from evalui.hub import hub_unreachable

    if source not in ("hub", "bundled", "auto"):
        raise ValueError(f"source must be hub, bundled or auto, not {source!r}")
    if source == "bundled":
        return _bundled(bundled_file, "bundled"), f"bundled sample (offline stand-in for {dataset})"
    # Probed first: datasets retries a silent Hub for minutes before giving up.
    reason = hub_unreachable()
    if reason is None:
        try:
            problems = _hub(dataset, split, cache_dir)
            if problems:
                return problems, dataset
            reason = f"{dataset} has no problems in its {split} split"
        except Exception as exc:  # no such split, a changed schema, a refusal: fall back, and say so
            reason = f"cannot load {dataset} from the Hugging Face Hub: {' '.join(str(exc).split())[:300]}"
    if source == "hub":
        raise RuntimeError(reason)
    log.warning("%s; using the bundled sample", reason)
    return (_bundled(bundled_file, "bundled"),
            f"bundled sample (offline stand-in for {dataset}): {reason}; using the bundled sample")


def reference_pool(source: str = "auto", cache_dir: Path | None = None):
    return load_problems(source, dataset=REFERENCE_DATASET, split="train", bundled_file="references.jsonl",
                         cache_dir=cache_dir)


def aime25(source: str = "auto", cache_dir: Path | None = None):
    return load_problems(source, dataset=AIME25_DATASET, split="test", bundled_file="aime25_fallback.jsonl",
                         cache_dir=cache_dir)
