"""``evalui bfcl …``"""

from __future__ import annotations

from evalui.jsonl import write_jsonl


def register(benchmarks) -> None:
    parser = benchmarks.add_parser("bfcl", help="Berkeley Function Calling Leaderboard (single-turn AST)")
    commands = parser.add_subparsers(dest="command", required=True)

    score = commands.add_parser("score", help="score an official-format result file")
    score.add_argument("--category", required=True, help="e.g. simple_python, live_multiple")
    score.add_argument("--results", required=True, help='JSON lines {"id", "result"}')
    score.add_argument("--out", help="write one verdict line per id to this JSONL file")
    score.add_argument(
        "--underscore-to-dot",
        action="store_true",
        help="the model saw dotted function names with '_' instead of '.', as OpenAI-style FC models do",
    )
    score.set_defaults(handler=run_score)


def run_score(args) -> int:
    from evalui.benchmarks.bfcl.score_file import score_result_file
    from evalui.cli import print_summary

    verdicts, summary = score_result_file(args.results, args.category, underscore_to_dot=args.underscore_to_dot)
    if args.out:
        write_jsonl(args.out, verdicts)
    print_summary(summary)
    return 0
