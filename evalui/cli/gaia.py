"""``evalui gaia …``"""

from __future__ import annotations

from evalui.cli.common import (ProgressBar, add_endpoint_flags, add_run_flags, apply_budget, endpoint_from_args,
                               interrupt_on_sigterm)
from evalui.errors import InputError
from evalui.jsonl import write_jsonl


# The tool agent's figures, printed when the run has them.
AGENT_FIGURES = ("steps_mean", "steps_median", "tool_calls", "tool_error_rate", "tokens_per_task", "cost")


def register(benchmarks) -> None:
    parser = benchmarks.add_parser("gaia", help="GAIA general-assistant benchmark")
    commands = parser.add_subparsers(dest="command", required=True)

    score = commands.add_parser("score", help="score a leaderboard submission against GAIA metadata")
    score.add_argument("--submission", required=True, help='JSON lines {"task_id", "model_answer"}')
    score.add_argument("--metadata", required=True, help="GAIA metadata.jsonl or metadata.parquet")
    score.add_argument("--out", help="write one verdict line per task to this JSONL file")
    score.set_defaults(handler=run_score)

    run = commands.add_parser("run", help="run GAIA with a model endpoint or your own agent")
    run.add_argument("--split", default="validation", choices=("validation", "test"))
    run.add_argument("--level", choices=("1", "2", "3"), help="only this level")
    source = run.add_mutually_exclusive_group()
    source.add_argument("--data-dir", help="a local copy in GAIA's layout (2023/<split>/metadata.*)")
    source.add_argument("--questions", help='a JSON array of {"Question", "Final answer"} records')
    source.add_argument("--sample", action="store_true", help="the small sample bundled with evalui")
    run.add_argument("--limit", type=int, help="at most N tasks")
    run.add_argument("--agent", help="your agent as module:attr, with answer(record) -> str, instead of an endpoint")
    run.add_argument("--tools", help="run evalui's own tool agent with these tools: python,files[,web]")
    run.add_argument("--tool-timeout", type=float, default=30.0, help="seconds a python program may run (default 30)")
    run.add_argument("--max-steps", type=int, default=12, help="model calls per task for the tool agent (default 12)")
    run.add_argument("--tool-protocol", default="auto", choices=("auto", "native", "text"),
                     help="native OpenAI tool calls, plain text, or native falling back to text (default)")
    add_endpoint_flags(run)
    add_run_flags(run, epochs=True)
    run.set_defaults(handler=run_run)


def run_score(args) -> int:
    from evalui.benchmarks.gaia.score_file import score_submission
    from evalui.cli import print_summary

    rows, summary = score_submission(args.submission, args.metadata)
    if args.out:
        write_jsonl(args.out, rows)
    print_summary(summary)
    return 0


def gaia_source(args) -> str:
    """The source option the run records, so a resume reloads the same questions."""
    from pathlib import Path

    if args.data_dir:
        return f"folder:{Path(args.data_dir).resolve()}@{args.split}"
    if args.questions:
        return f"questions:{Path(args.questions).resolve()}"
    return "sample" if args.sample else f"hf:{args.split}"


def run_run(args) -> int:
    interrupt_on_sigterm()
    from evalui.benchmarks.gaia.agent import load_agent
    from evalui.benchmarks.gaia.run import execute_gaia_run, prepare_gaia_run
    from evalui.benchmarks.gaia.spec import GaiaOptions
    from evalui.cli import print_summary
    from evalui.engine.epochs import add_epochs
    from evalui.engine.store import RunStore

    if args.limit is not None and args.limit < 0:
        raise InputError("--limit must be 0 (all tasks) or more")
    options = GaiaOptions(source=gaia_source(args), level=args.level, limit=args.limit or None, agent=args.agent,
                          tools=args.tools.split(",") if args.tools else None, tool_timeout=args.tool_timeout,
                          max_steps=args.max_steps, tool_protocol=args.tool_protocol)
    agent = settings = None
    if args.agent:
        agent = load_agent(args.agent)
    else:
        settings = endpoint_from_args(args)
    store = RunStore()
    try:
        exp_id = prepare_gaia_run(store, options, settings=settings, exp_id=args.exp_id, concurrency=args.concurrency,
                                  requests_per_minute=args.rpm)
        add_epochs(store, exp_id, args.epochs)
        apply_budget(store, exp_id, args)
    except ValueError as exc:
        if "no samples" in str(exc):
            raise InputError("the selection has no GAIA tasks (check --split, --level and the source)") from None
        raise InputError(str(exc)) from None
    bar = ProgressBar(f"GAIA {exp_id}")
    try:
        summary = execute_gaia_run(store, exp_id, settings=settings, agent=agent, on_progress=bar, out=args.out)
    finally:
        bar.close()
    by_level = {level: {"total": p["total"], "correct": p["successes"], "accuracy": p["rate"]}
                for level, p in summary["by_level"].items()}
    print_summary({"exp_id": summary["exp_id"], "total": summary["total"], "correct": summary["correct"],
                   "accuracy": summary["accuracy"], "lenient_accuracy": summary["lenient_accuracy"],
                   "by_level": by_level, "errors": summary["errors"], "duration_s": summary["duration_s"],
                   "out_dir": summary["out_dir"], "submission": summary["submission"], "status": summary["status"],
                   **{k: summary[k] for k in (*AGENT_FIGURES, "epochs") if k in summary}})
    return 0
