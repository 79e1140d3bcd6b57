"""``evalui bfcl score``; ``evalui bfcl run`` is built from BFCL's options (evalui.cli.generic)."""

from __future__ import annotations

from evalui.jsonl import write_jsonl


def register(benchmarks):
    parser = benchmarks.add_parser("bfcl", help="Berkeley Function Calling Leaderboard (single-turn AST and multi-turn)")
    commands = parser.add_subparsers(dest="command", required=True)

    score = commands.add_parser("score", help="score an official-format result file")
    score.add_argument("--category", required=True, help="e.g. simple_python, live_multiple, multi_turn_base")
    score.add_argument("--results", required=True, help='JSON lines {"id", "result"}')
    score.add_argument("--out", help="write one verdict line per id to this JSONL file")
    score.add_argument(
        "--fc-names-dotted",
        action="store_true",
        help="FC results keep dotted function names (by default they are read as OpenAI-style FC "
        "models and evalui write them: 'math.factorial' called as 'math_factorial')",
    )
    score.set_defaults(handler=run_score)

    return commands


def run_score(args) -> int:
    from evalui.benchmarks.bfcl.score_file import score_result_file
    from evalui.cli.summary import print_summary

    verdicts, summary = score_result_file(args.results, args.category, fc_names_underscored=not args.fc_names_dotted)
    if args.out:
        write_jsonl(args.out, verdicts)
    print_summary(summary)
    return 0
