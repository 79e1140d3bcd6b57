"""``evalui aime …``: generate AIME-style problems, judge them, and measure their win rate."""

from __future__ import annotations

import argparse
from pathlib import Path

from evalui.cli.common import (DEFAULT_CONCURRENCY, ProgressBar, add_endpoint_flags, add_run_flags, apply_budget,
                               endpoint_from_args, interrupt_on_sigterm)
from evalui.errors import InputError


def register(benchmarks) -> None:
    parser = benchmarks.add_parser("aime", help="AIME-style data generation, LLM judge and win rate")
    commands = parser.add_subparsers(dest="command", required=True)

    generate = commands.add_parser("generate", help="write N AIME-style problems")
    _generation_flags(generate)
    add_endpoint_flags(generate)
    add_run_flags(generate)
    generate.set_defaults(handler=run_generate, concurrency=4)

    judge = commands.add_parser("judge", help="score a generated file on four dimensions (the model is the judge)")
    judge.add_argument("--input", required=True, help="an aime_generated_*.json file")
    add_endpoint_flags(judge, model_help="the judge model")
    add_run_flags(judge)
    judge.set_defaults(handler=run_judge, concurrency=4)

    winrate = commands.add_parser("winrate", help="compare a generated file with real AIME 2025 problems")
    winrate.add_argument("--input", required=True, help="an aime_generated_*.json file")
    winrate.add_argument("--real", choices=("auto", "hub", "bundled"), default="auto",
                         help="real problems: math-ai/aime25 from the Hub, the bundled stand-in, or auto")
    add_endpoint_flags(winrate, model_help="the judge model")
    add_run_flags(winrate)
    winrate.set_defaults(handler=run_winrate, concurrency=4)

    evaluate = commands.add_parser("evaluate", help="generate, judge and compare, then write one report")
    _generation_flags(evaluate)
    evaluate.add_argument("--real", choices=("auto", "hub", "bundled"), default="auto")
    add_endpoint_flags(evaluate, model_help="the generator model")
    evaluate.add_argument("--judge-base-url", help="the judge's endpoint (default: the generator's)")
    evaluate.add_argument("--judge-model", help="the judge model (default: the generator's)")
    evaluate.add_argument("--judge-api-key-env", help="variable holding the judge's key (default: --api-key-env)")
    add_run_flags(evaluate)
    evaluate.set_defaults(handler=run_evaluate, concurrency=4)


def _generation_flags(parser) -> None:
    parser.add_argument("--n", type=int, required=True, help="how many problems")
    parser.add_argument("--topics", help="comma-separated topics (default: algebra, geometry, number theory, "
                                         "combinatorics, probability)")
    parser.add_argument("--references", choices=("auto", "hub", "bundled"), default="auto",
                        help="reference examples: TianHongZXY/aime-1983-2025 from the Hub, the bundled sample, or auto")


def _judge_settings(args):
    judge_args = argparse.Namespace(**vars(args))
    judge_args.base_url = args.judge_base_url or args.base_url
    judge_args.model = args.judge_model or args.model
    judge_args.api_key_env = args.judge_api_key_env or args.api_key_env
    return endpoint_from_args(judge_args)


def _store():
    from evalui.engine.store import RunStore

    return RunStore()


def _step(args, store, settings, label: str, prepare, execute) -> dict:
    """Register a step's run (bad input becomes a one-line error), then run it under a progress bar."""
    try:
        run_id = prepare()
        apply_budget(store, run_id, args)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    bar = ProgressBar(f"{label} {run_id}")
    try:
        return execute(store, settings, run_id, concurrency=args.concurrency or DEFAULT_CONCURRENCY, requests_per_minute=args.rpm,
                       on_progress=bar)
    finally:
        bar.close()


def _generate(args, store, settings) -> dict:
    from evalui.benchmarks.aime.run import execute_generation, prepare_generation

    topics = args.topics.split(",") if args.topics else None
    return _step(args, store, settings, "generate", lambda: prepare_generation(
        store, settings, n=args.n, topics=topics, seed=args.seed, reference_source=args.references,
        exp_id=args.exp_id, out=args.out), execute_generation)


def _judge(args, store, settings, input_file, exp_id) -> dict:
    from evalui.benchmarks.aime.run import execute_judge, prepare_judge

    return _step(args, store, settings, "judge", lambda: prepare_judge(
        store, settings, input_file, exp_id=exp_id, out=args.out), execute_judge)


def _winrate(args, store, settings, input_file, exp_id) -> dict:
    from evalui.benchmarks.aime.run import execute_winrate, prepare_winrate

    return _step(args, store, settings, "win rate", lambda: prepare_winrate(
        store, settings, input_file, seed=args.seed, real_source=args.real, exp_id=exp_id, out=args.out),
        execute_winrate)


def _generation_summary(summary: dict) -> dict:
    keys = ("exp_id", "requested", "generated", "errors", "topics", "duration_s", "out_dir", "output", "status")
    return {k: summary[k] for k in keys}


def _judge_summary(summary: dict) -> dict:
    return {"exp_id": summary["exp_id"], "judged": summary["judged"], "failures": summary["failures"],
            "average_score": summary["average"], "pass_rate": summary["pass_rate"]["rate"],
            "excellent_rate": summary["excellent_rate"]["rate"], "dimensions": summary["dimensions"],
            "duration_s": summary["duration_s"], "output": summary["output"], "report": summary["report"]}


def _winrate_summary(summary: dict) -> dict:
    return {"exp_id": summary["exp_id"], "pairs": summary["pairs"], "failures": summary["failures"],
            "win_rate": summary["win_rate"]["rate"], "loss_rate": summary["loss_rate"]["rate"],
            "tie_rate": summary["tie_rate"]["rate"], "inconsistent_pairs": summary["inconsistent_pairs"],
            "duration_s": summary["duration_s"], "output": summary["output"], "report": summary["report"]}


def run_generate(args) -> int:
    interrupt_on_sigterm()
    from evalui.cli import print_summary

    print_summary(_generation_summary(_generate(args, _store(), endpoint_from_args(args))))
    return 0


def run_judge(args) -> int:
    interrupt_on_sigterm()
    from evalui.cli import print_summary

    print_summary(_judge_summary(_judge(args, _store(), endpoint_from_args(args), args.input, args.exp_id)))
    return 0


def run_winrate(args) -> int:
    interrupt_on_sigterm()
    from evalui.cli import print_summary

    print_summary(_winrate_summary(_winrate(args, _store(), endpoint_from_args(args), args.input, args.exp_id)))
    return 0


def run_evaluate(args) -> int:
    interrupt_on_sigterm()
    from evalui.benchmarks.aime.run import write_evaluation_report
    from evalui.cli import print_summary

    store = _store()
    generator, judge_settings = endpoint_from_args(args), _judge_settings(args)
    generation = _generate(args, store, generator)
    if not generation["generated"]:
        raise InputError("no problem was generated, so there is nothing to judge")
    output = Path(generation["output"])
    base = args.exp_id or generation["exp_id"]
    judged = _judge(args, store, judge_settings, output, f"{base}-judge")
    compared = _winrate(args, store, judge_settings, output, f"{base}-winrate")
    report = write_evaluation_report(generation, judged, compared)
    print_summary({"generation": _generation_summary(generation), "judge": _judge_summary(judged),
                   "winrate": _winrate_summary(compared), "report": report})
    return 0
