"""The Score tab's panel for BFCL result files: a category and its official result file."""

from __future__ import annotations

from evalui.benchmarks.bfcl.scoring.single_turn import ALL_CATEGORIES
from evalui.core.benchmark import FileScoring, ScoreInput, accuracy_interval
from evalui.reports.markdown import inert


def score(values: list, budget_s: float) -> tuple[list[dict], dict]:
    from evalui.benchmarks.bfcl.score_file import score_result_file

    category, path = values
    return score_result_file(path, category, budget_s=budget_s)


def figures(summary: dict) -> list[tuple[str, dict]]:
    return [("score.bfcl_figures", {"category": inert(summary["category"]), "correct": summary["correct"],
                                    "total": summary["total"], "accuracy": accuracy_interval(summary),
                                    "missing": summary["missing"]})]


SCORE_FILES = FileScoring(
    inputs=(ScoreInput("category", "score.category", choices=lambda: list(ALL_CATEGORIES), default="simple_python"),
            ScoreInput("file", "score.results", file_types=(".json", ".jsonl"), parameter="upload")),
    score=score,
    figures=figures,
    columns=("id", "correct", "error_type", "error"),
    intro="score.bfcl_intro",
    button="score.bfcl_button",
    verdicts_name=lambda values: f"{values[0]}_verdicts.jsonl",
)
