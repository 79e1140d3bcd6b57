"""AIME's own commands beside its three steps (``evalui aime generate``, ``judge`` and ``winrate``, which
evalui.cli.generic builds from their options): ``evalui aime evaluate`` generates problems, judges them
and measures their win rate, then writes one report; ``evalui aime calibrate`` corrects the judge's
figures by the reviews. The generation spec's ``cli_commands`` hook; ``kit`` is what the CLI lends
(evalui.cli.generic.KIT: its endpoint and run flags, starting and following a run, the summary line)."""

from __future__ import annotations

import argparse
from pathlib import Path

from evalui.errors import InputError

HELP = "AIME-style data generation, LLM judge and win rate"


def commands(group, kit, steps: tuple) -> None:
    """``steps``: the generation, judging and win-rate specs, as evalui.benchmarks.aime.spec gives them."""
    evaluate = group.add_parser("evaluate", help="generate, judge and compare, then write one report")
    evaluate.add_argument("--n", type=int, required=True, help="how many problems")
    evaluate.add_argument("--topics", help="comma-separated topics (default: algebra, geometry, number theory, "
                                           "combinatorics, probability)")
    evaluate.add_argument("--references", choices=("auto", "hub", "bundled"), default="auto",
                          help="reference examples: TianHongZXY/aime-1983-2025 from the Hub, the bundled sample, or "
                               "auto")
    evaluate.add_argument("--real", choices=("auto", "hub", "bundled"), default="auto")
    kit.add_endpoint_flags(evaluate, model_help="the generator model")
    evaluate.add_argument("--judge-base-url", help="the judge's endpoint (default: the generator's)")
    evaluate.add_argument("--judge-model", help="the judge model (default: the generator's)")
    evaluate.add_argument("--judge-api-key-env", help="variable holding the judge's key (default: --api-key-env)")
    kit.add_run_flags(evaluate)
    evaluate.set_defaults(handler=lambda args: run_evaluate(args, kit, steps))
    calibrate = group.add_parser("calibrate", help="the judge's pass rate, mean score and win rate corrected by "
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
    calibrate.set_defaults(handler=lambda args: run_calibrate(args, kit))


def _judge_settings(args, kit):
    judge_args = argparse.Namespace(**vars(args))
    judge_args.base_url = args.judge_base_url or args.base_url
    judge_args.model = args.judge_model or args.model
    judge_args.api_key_env = args.judge_api_key_env or args.api_key_env
    return kit.endpoint_from_args(judge_args)


def run_evaluate(args, kit, steps: tuple) -> int:
    kit.interrupt_on_sigterm()
    from evalui.benchmarks.aime.companions import write_evaluation_report
    from evalui.benchmarks.aime.options import GenerateOptions, JudgeOptions, WinrateOptions
    from evalui.store.run_store import RunStore

    generation_spec, judging_spec, winrate_spec = steps
    generator, judge_settings = kit.endpoint_from_args(args), _judge_settings(args, kit)
    generate = GenerateOptions(n=args.n, seed=args.seed, reference_source=args.references,
                               **({"topics": args.topics.split(",")} if args.topics else {}))
    store = RunStore()
    try:
        generation = kit.run_to_end(generation_spec, args, generator, store,
                                    kit.start(generation_spec, generate, args, generator, store))
        if not generation["generated"]:
            raise InputError("no problem was generated, so there is nothing to judge")
        output, base = str(Path(generation["output"])), args.exp_id or generation["exp_id"]
        results = []
        for spec, options, suffix in ((judging_spec, JudgeOptions(input=output), "judge"),
                                      (winrate_spec, WinrateOptions(input=output, seed=args.seed, real_source=args.real),
                                       "winrate")):
            run_id = kit.start(spec, options, args, judge_settings, store, exp_id=f"{base}-{suffix}")
            results.append(kit.run_to_end(spec, args, judge_settings, store, run_id))
    finally:
        store.close()
    judged, compared = results
    report = write_evaluation_report(generation, judged, compared)
    kit.print_summary({"generation": generation_spec.cli_summary(generation), "judge": judging_spec.cli_summary(judged),
                       "winrate": winrate_spec.cli_summary(compared), "report": report})
    return 0


def run_calibrate(args, kit) -> int:
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
    kit.print_summary({"input": args.file, **block})
    return 0
