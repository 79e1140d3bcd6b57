"""Score a GAIA leaderboard submission (JSON lines ``{"task_id", "model_answer"}``)."""

from __future__ import annotations

from pathlib import Path

from evalui.benchmarks.gaia.metadata import read_metadata
from evalui.benchmarks.gaia.scoring import lenient_match, question_scorer
from evalui.errors import InputError
from evalui.jsonl import iter_jsonl
from evalui.stats.metrics import accuracy, accuracy_by, level_drop_rates


def score_submission(submission: str | Path, metadata: str | Path) -> tuple[list[dict], dict]:
    tasks = {t["task_id"]: t for t in read_metadata(metadata)}
    rows: list[dict] = []
    seen: dict[str, int] = {}
    for line, record in iter_jsonl(submission):
        task_id = record.get("task_id")
        if not isinstance(task_id, str):
            raise InputError('missing string field "task_id"', path=str(submission), line=line)
        if task_id not in tasks:
            raise InputError(f"unknown task_id {task_id!r} (not in {metadata})", path=str(submission), line=line)
        if task_id in seen:
            raise InputError(f"task_id {task_id!r} repeats line {seen[task_id]}", path=str(submission), line=line)
        seen[task_id] = line
        answer = record.get("model_answer")
        answer = None if answer is None else str(answer)
        truth = tasks[task_id]["Final answer"]
        rows.append(
            {
                "task_id": task_id,
                "level": tasks[task_id]["Level"],
                "model_answer": answer,
                "correct": question_scorer(answer, truth),
                "lenient_correct": lenient_match(answer, truth),
            }
        )
    return rows, summarise(rows, expected=len(tasks))


def summarise(rows: list[dict], expected: int | None = None) -> dict:
    overall = accuracy(r["correct"] for r in rows)
    by_level = accuracy_by((str(r["level"]), r["correct"]) for r in rows)
    summary = {
        "total": overall.total,
        "correct": overall.successes,
        "accuracy": overall.rate,
        "ci95": [overall.low, overall.high],
        "lenient_accuracy": accuracy(r["lenient_correct"] for r in rows).rate,
        "by_level": {
            level: {"total": p.total, "correct": p.successes, "accuracy": p.rate}
            for level, p in sorted(by_level.items())
        },
        "level_drop_rates": level_drop_rates(by_level),
    }
    if expected is not None:
        summary["missing"] = expected - overall.total
    return summary
