"""BFCL's own command beside the generic ``evalui bfcl run`` (evalui.cli.generic builds that one from its
options): ``evalui bfcl score``, which scores an official-format result file. The spec's
``cli_commands`` hook; ``kit`` is what the CLI lends (evalui.cli.generic.KIT)."""

from __future__ import annotations

HELP = "Berkeley Function Calling Leaderboard (single-turn AST and multi-turn)"


def commands(group, kit) -> None:
    score = group.add_parser("score", help="score an official-format result file")
    score.add_argument("--category", required=True, help="e.g. simple_python, live_multiple, multi_turn_base")
    score.add_argument("--results", required=True, help='JSON lines {"id", "result"}')
    score.add_argument("--out", help="write one verdict line per id to this JSONL file")
    score.add_argument(
        "--fc-names-dotted",
        action="store_true",
        help="FC results keep dotted function names (by default they are read as OpenAI-style FC "
        "models and evalui write them: 'math.factorial' called as 'math_factorial')",
    )
    score.set_defaults(handler=lambda args: run_score(args, kit))


def run_score(args, kit) -> int:
    from evalui.benchmarks.bfcl.score_file import score_result_file
    from evalui.jsonl import write_jsonl

    verdicts, summary = score_result_file(args.results, args.category, fc_names_underscored=not args.fc_names_dotted)
    if args.out:
        write_jsonl(args.out, verdicts)
    kit.print_summary(summary)
    return 0
