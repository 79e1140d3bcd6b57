"""``evalui verify …``: the human verification file of a generated AIME file."""

from __future__ import annotations


def register(benchmarks) -> None:
    parser = benchmarks.add_parser("verify", help="human verification of generated problems")
    commands = parser.add_subparsers(dest="command", required=True)
    summary = commands.add_parser("summary", help="counts by status and agreement with the LLM judge")
    summary.add_argument("--input", required=True, help="the generated file (its _verifications.json sits beside it)")
    summary.set_defaults(handler=run_summary)


def run_summary(args) -> int:
    from evalui.cli import print_summary
    from evalui.verification import summary

    print_summary(summary(args.input))
    return 0
