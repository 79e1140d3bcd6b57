"""``evalui aime evaluate``: generate AIME-style problems, judge them and measure their win rate, then
write one report. The single steps (``aime generate``, ``aime judge``, ``aime winrate``) are built
from their options (evalui.cli.generic)."""

from __future__ import annotations

import argparse
from pathlib import Path

from evalui.cli.common import add_endpoint_flags, add_run_flags, endpoint_from_args, interrupt_on_sigterm
from evalui.errors import InputError


def register(benchmarks):
    parser = benchmarks.add_parser("aime", help="AIME-style data generation, LLM judge and win rate")
    commands = parser.add_subparsers(dest="command", required=True)
    evaluate = commands.add_parser("evaluate", help="generate, judge and compare, then write one report")
    evaluate.add_argument("--n", type=int, required=True, help="how many problems")
    evaluate.add_argument("--topics", help="comma-separated topics (default: algebra, geometry, number theory, "
                                           "combinatorics, probability)")
    evaluate.add_argument("--references", choices=("auto", "hub", "bundled"), default="auto",
                          help="reference examples: TianHongZXY/aime-1983-2025 from the Hub, the bundled sample, or "
                               "auto")
    evaluate.add_argument("--real", choices=("auto", "hub", "bundled"), default="auto")
    add_endpoint_flags(evaluate, model_help="the generator model")
    evaluate.add_argument("--judge-base-url", help="the judge's endpoint (default: the generator's)")
    evaluate.add_argument("--judge-model", help="the judge model (default: the generator's)")
    evaluate.add_argument("--judge-api-key-env", help="variable holding the judge's key (default: --api-key-env)")
    add_run_flags(evaluate)
    evaluate.set_defaults(handler=run_evaluate)
    calibrate = commands.add_parser("calibrate", help="the judge's pass rate, mean score and win rate corrected by "
                                                      "the reviews, beside the judge's and the reviewers' own")
    calibrate.add_argument("file", metavar="FILE", help="a generated file, judged, with reviews beside it")
    calibrate.add_argument("--interval", choices=("delta", "bootstrap"), default="delta",
                           help="the pass rate's interval: the delta method (default) or a bootstrap of both sets")
    calibrate.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and of the review-next order")
    calibrate.add_argument("--next", type=int, default=10, dest="more", metavar="N",
                           help="how many problems to list to review next (default 10)")
    calibrate.add_argument("--ties-half", action="store_true",
                           help="count a tie as half a win in the win rate (default: only wins count, as the win "
                                "rate reports)")
    calibrate.set_defaults(handler=run_calibrate)
    return commands


def _judge_settings(args):
    judge_args = argparse.Namespace(**vars(args))
    judge_args.base_url = args.judge_base_url or args.base_url
    judge_args.model = args.judge_model or args.model
    judge_args.api_key_env = args.judge_api_key_env or args.api_key_env
    return endpoint_from_args(judge_args)


def run_evaluate(args) -> int:
    interrupt_on_sigterm()
    from evalui.benchmarks.aime.companions import write_evaluation_report
    from evalui.benchmarks.aime.options import GenerateOptions, JudgeOptions, WinrateOptions
    from evalui.benchmarks.aime.spec import GENERATION, JUDGING, WINRATE_SPEC
    from evalui.cli.generic import run_to_end, start
    from evalui.cli.summary import print_summary
    from evalui.store.run_store import RunStore

    generator, judge_settings = endpoint_from_args(args), _judge_settings(args)
    generate = GenerateOptions(n=args.n, seed=args.seed, reference_source=args.references,
                               **({"topics": args.topics.split(",")} if args.topics else {}))
    store = RunStore()
    try:
        generation = run_to_end(GENERATION, args, generator, store, start(GENERATION, generate, args, generator, store))
        if not generation["generated"]:
            raise InputError("no problem was generated, so there is nothing to judge")
        output, base = str(Path(generation["output"])), args.exp_id or generation["exp_id"]
        steps = []
        for spec, options, suffix in ((JUDGING, JudgeOptions(input=output), "judge"),
                                      (WINRATE_SPEC, WinrateOptions(input=output, seed=args.seed, real_source=args.real),
                                       "winrate")):
            run_id = start(spec, options, args, judge_settings, store, exp_id=f"{base}-{suffix}")
            steps.append(run_to_end(spec, args, judge_settings, store, run_id))
    finally:
        store.close()
    judged, compared = steps
    report = write_evaluation_report(generation, judged, compared)
    print_summary({"generation": GENERATION.cli_summary(generation), "judge": JUDGING.cli_summary(judged),
                   "winrate": WINRATE_SPEC.cli_summary(compared), "report": report})
    return 0


def run_calibrate(args) -> int:
    from evalui.cli import print_summary
    from evalui.review.calibration import calibrate, figure_rows, why_not_corrected

    if args.more < 0:
        raise InputError("--next must be 0 or more")
    block = calibrate(args.file, interval=args.interval, seed=args.seed, more=args.more,
                      tie_value=0.5 if args.ties_half else 0.0)
    print(f"{block['n_labelled']} problems reviewed, {block['n_unlabelled']} not; {block['method']['weighting']}")
    header = ["figure", "judge only", "reviewers only", "corrected", "report"]
    rows = [header, *figure_rows(block)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    for reason in why_not_corrected(block):
        print(f"not corrected: {reason}")
    following = block["review_next"]
    if following["problem_ids"]:
        after = following["half_width_after"]
        # Problem ids come from the data file: what a terminal would act on (escapes) is shown, not sent.
        ids = ", ".join("".join(c if c.isprintable() else "?" for c in p) for p in following["problem_ids"])
        print(f"review next: {ids}"
              + (f" (pass-rate interval ±{after:.1%} after them)" if after is not None else ""))
    print_summary({"input": args.file, **block})
    return 0
