"""The Score tab's panel for GAIA submissions: a submission and the metadata it is scored against."""

from __future__ import annotations

from evalui.core.benchmark import FileScoring, ScoreInput, accuracy_interval, percent
from evalui.reports.markdown import inert


def score(values: list, budget_s: float) -> tuple[list[dict], dict]:
    from evalui.benchmarks.gaia.score_file import score_submission

    submission, metadata = values
    return score_submission(submission, metadata)


def figures(summary: dict) -> list[tuple[str, dict]]:
    lines = [("score.gaia_figures", {"correct": summary["correct"], "total": summary["total"],
                                     "accuracy": accuracy_interval(summary),
                                     "lenient": percent(summary.get("lenient_accuracy")),
                                     "missing": summary.get("missing", 0)})]
    for level, shown in summary.get("by_level", {}).items():
        # Levels are whatever the uploaded metadata says: shown as text, never as HTML or an image.
        lines.append(("score.gaia_level", {"level": inert(level), "correct": shown["correct"],
                                           "total": shown["total"], "accuracy": percent(shown["accuracy"])}))
    return lines


SCORE_FILES = FileScoring(
    inputs=(ScoreInput("submission", "score.submission", file_types=(".jsonl", ".json")),
            ScoreInput("metadata", "score.metadata", file_types=(".jsonl", ".parquet"))),
    score=score,
    figures=figures,
    columns=("task_id", "level", "model_answer", "correct", "lenient_correct"),
    intro="score.gaia_intro",
    button="score.gaia_button",
    verdicts_name=lambda values: "gaia_verdicts.jsonl",
)
