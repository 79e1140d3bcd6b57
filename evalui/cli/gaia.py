"""``evalui gaia score``; ``evalui gaia run`` is built from GAIA's options (evalui.cli.generic)."""

from __future__ import annotations

from evalui.jsonl import write_jsonl


def register(benchmarks):
    parser = benchmarks.add_parser("gaia", help="GAIA general-assistant benchmark")
    commands = parser.add_subparsers(dest="command", required=True)

    score = commands.add_parser("score", help="score a leaderboard submission against GAIA metadata")
    score.add_argument("--submission", required=True, help='JSON lines {"task_id", "model_answer"}')
    score.add_argument("--metadata", required=True, help="GAIA metadata.jsonl or metadata.parquet")
    score.add_argument("--out", help="write one verdict line per task to this JSONL file")
    score.set_defaults(handler=run_score)

    return commands


def run_score(args) -> int:
    from evalui.benchmarks.gaia.score_file import score_submission
    from evalui.cli.summary import print_summary

    rows, summary = score_submission(args.submission, args.metadata)
    if args.out:
        write_jsonl(args.out, rows)
    print_summary(summary)
    return 0
