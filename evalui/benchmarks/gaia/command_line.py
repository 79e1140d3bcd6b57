"""GAIA on the command line: its extras on the generic ``evalui gaia run`` (where the tasks come from,
said with flags of their own (a split, a bundled sample, a question file or a local copy) that become
the ``source`` option, and the summary it prints), and its own ``evalui gaia score``, which scores a
leaderboard submission (the spec's ``cli_commands`` hook; ``kit``: what the CLI lends, evalui.cli.generic.KIT)."""

from __future__ import annotations

from pathlib import Path

HELP = "GAIA general-assistant benchmark"
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


def commands(group, kit) -> None:
    score = group.add_parser("score", help="score a leaderboard submission against GAIA metadata")
    score.add_argument("--submission", required=True, help='JSON lines {"task_id", "model_answer"}')
    score.add_argument("--metadata", required=True, help="GAIA metadata.jsonl or metadata.parquet")
    score.add_argument("--out", help="write one verdict line per task to this JSONL file")
    score.set_defaults(handler=lambda args: run_score(args, kit))


def run_score(args, kit) -> int:
    from evalui.benchmarks.gaia.score_file import score_submission
    from evalui.jsonl import write_jsonl

    rows, summary = score_submission(args.submission, args.metadata)
    if args.out:
        write_jsonl(args.out, rows)
    kit.print_summary(summary)
    return 0
