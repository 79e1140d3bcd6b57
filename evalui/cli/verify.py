"""``evalui verify …``: the human reviews of a generated AIME file.

Bad values are one line on stderr and exit 2, argparse's own complaints included, and nothing is
written: a review is saved only once every value has been checked.
"""

from __future__ import annotations

import argparse
import re
import sys

from evalui.errors import InputError

SCORE_FLAGS = (("correctness", "--correctness"), ("clarity", "--clarity"),
               ("difficulty_match", "--difficulty-match"), ("completeness", "--completeness"))


class OneLineParser(argparse.ArgumentParser):
    """argparse prints its usage before a complaint; scripts want the complaint alone, on one line."""

    def error(self, message):
        print(f"evalui: error: {' '.join(message.split())}", file=sys.stderr)
        raise SystemExit(2)


def _review_arguments(command, who: str) -> None:
    command.add_argument("--input", required=True, help="the generated file")
    command.add_argument("--problem", required=True, help="the problem_id")
    command.add_argument(f"--{who}", dest="name", required=True, help=f"the {who}'s name")
    for _, flag in SCORE_FLAGS:
        command.add_argument(flag, required=True, metavar="N", help="a whole number from 1 to 5")
    command.add_argument("--status", required=True, help="approved, rejected or needs_revision")
    command.add_argument("--comment", default="", help="optional comment")
    command.add_argument("--better-than-reference", metavar="ANSWER",
                         help="optional: yes, no or tie, is the problem better than the reference problem the "
                              "win-rate judge compared it with (the human side of the corrected win rate)")


def register(benchmarks) -> None:
    parser = benchmarks.add_parser("verify", help="human verification of generated problems")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    summary = commands.add_parser("summary", help="counts, reviewers' agreement (Krippendorff's alpha), "
                                                  "kappa with the LLM judge, disputed problems")
    summary.add_argument("--input", required=True, help="the generated file (its _verifications.json sits beside it)")
    summary.set_defaults(handler=run_summary)
    review = commands.add_parser("review", help="save one reviewer's review of one problem")
    _review_arguments(review, "reviewer")
    review.set_defaults(handler=run_review, final=False)
    adjudicate = commands.add_parser("adjudicate", help="set a problem's final review")
    _review_arguments(adjudicate, "adjudicator")
    adjudicate.set_defaults(handler=run_review, final=True)
    settings = commands.add_parser("settings", help="show or set the overlap (reviewers per problem) and blind mode")
    settings.add_argument("--input", required=True)
    settings.add_argument("--overlap", help="each problem goes to this many reviewers (1–20)")
    settings.add_argument("--blind", help="on or off: hide the others' scores until a reviewer has saved")
    settings.set_defaults(handler=run_settings)
    queue = commands.add_parser("queue", help="the problems that need this reviewer's review")
    queue.add_argument("--input", required=True)
    queue.add_argument("--reviewer", required=True)
    queue.set_defaults(handler=run_queue)
    export = commands.add_parser("export", help="push the approved problems with their reviews to a Hub dataset")
    export.add_argument("--input", required=True)
    export.add_argument("--repo", required=True, help="owner/name of the dataset repository")
    export.add_argument("--public", action="store_true", help="make a new repository public (default private)")
    export.set_defaults(handler=run_export)


def run_summary(args) -> int:
    from evalui.cli.summary import print_summary
    from evalui.review.report import summary

    print_summary(summary(args.input))
    return 0


def _score(flag: str, text: str) -> int:
    if not re.fullmatch(r"\s*[1-5]\s*", text or ""):
        raise InputError(f"{flag} must be a whole number from 1 to 5, got {text!r}")
    return int(text)


def run_review(args) -> int:
    from evalui.cli.summary import print_summary
    from evalui.review.queue import record_review
    from evalui.review.reviews import PREFERENCES, STATUSES

    scores = {dimension: _score(flag, getattr(args, dimension)) for dimension, flag in SCORE_FLAGS}
    if args.status not in STATUSES:
        raise InputError(f"--status must be one of {', '.join(STATUSES)}, got {args.status!r}")
    if args.better_than_reference not in (None, *PREFERENCES):
        raise InputError(f"--better-than-reference must be one of {', '.join(PREFERENCES)}, "
                         f"got {args.better_than_reference!r}")
    review = record_review(args.input, args.problem, scores, args.status, args.comment, args.name, final=args.final,
                           better_than_reference=args.better_than_reference)
    print_summary({"input": args.input, "saved": review, "final": args.final})
    return 0


def run_settings(args) -> int:
    from evalui.cli.summary import print_summary
    from evalui.review.queue import read_settings, save_settings
    from evalui.review.uploads import read_data_file

    read_data_file(args.input)
    settings = read_settings(args.input)
    if args.overlap is not None or args.blind is not None:
        overlap = settings["overlap"]
        if args.overlap is not None:
            if not re.fullmatch(r"\s*\d{1,3}\s*", args.overlap):
                raise InputError(f"--overlap must be a whole number from 1 to 20, got {args.overlap!r}")
            overlap = int(args.overlap)
        blind = settings["blind"]
        if args.blind is not None:
            if args.blind not in ("on", "off"):
                raise InputError(f"--blind must be on or off, got {args.blind!r}")
            blind = args.blind == "on"
        settings = save_settings(args.input, overlap, blind)
    print_summary({"input": args.input, **settings})
    return 0


def run_queue(args) -> int:
    from evalui.cli.summary import print_summary
    from evalui.review.queue import needs_review, read_settings
    from evalui.review.report import file_reviews
    from evalui.review.reviews import clean_name

    name = clean_name(args.reviewer)
    problems, parsed, _ = file_reviews(args.input)
    queue = needs_review([p["problem_id"] for p in problems], parsed, name, read_settings(args.input)["overlap"])
    print_summary({"input": args.input, "reviewer": name, "needs_review": queue, "count": len(queue)})
    return 0


def run_export(args) -> int:
    from evalui.cli.summary import print_summary
    from evalui.review.export import push_approved

    print_summary({"input": args.input, **push_approved(args.input, args.repo, private=not args.public)})
    return 0
