"""GAIA's extras on the generic ``evalui gaia run``: where the tasks come from, said with flags of
their own (a split, a bundled sample, a question file or a local copy) that become the ``source``
option, and the summary it prints."""

from __future__ import annotations

from pathlib import Path

# The tool agent's figures, printed when the run has them.
AGENT_FIGURES = ("steps_mean", "steps_median", "tool_calls", "tool_error_rate", "tokens_per_task", "cost")


def add_source_flags(parser) -> None:
    parser.add_argument("--split", default="validation", choices=("validation", "test"))
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--data-dir", help="a local copy in GAIA's layout (2023/<split>/metadata.*)")
    source.add_argument("--questions", help='a JSON array of {"Question", "Final answer"} records')
    source.add_argument("--sample", action="store_true", help="the small sample bundled with evalui")


def source_of(args) -> str:
    """The source option the run records, so a resume reloads the same questions."""
    if args.data_dir:
        return f"folder:{Path(args.data_dir).resolve()}@{args.split}"
    if args.questions:
        return f"questions:{Path(args.questions).resolve()}"
    return "sample" if args.sample else f"hf:{args.split}"


def options_from_args(args, values: dict) -> dict:
    return {**values, "source": source_of(args)}


def cli_summary(summary: dict) -> dict:
    by_level = {level: {"total": p["total"], "correct": p["successes"], "accuracy": p["rate"]}
                for level, p in summary["by_level"].items()}
    return {"exp_id": summary["exp_id"], "total": summary["total"], "correct": summary["correct"],
            "accuracy": summary["accuracy"], "lenient_accuracy": summary["lenient_accuracy"], "by_level": by_level,
            "errors": summary["errors"], "duration_s": summary["duration_s"], "out_dir": summary["out_dir"],
            "submission": summary["submission"], "status": summary["status"],
            **{k: summary[k] for k in (*AGENT_FIGURES, "epochs") if k in summary}}
