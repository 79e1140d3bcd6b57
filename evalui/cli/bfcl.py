"""``evalui bfcl …``"""

from __future__ import annotations

from evalui.cli.common import (ProgressBar, add_endpoint_flags, add_run_flags, apply_budget, endpoint_from_args,
                               interrupt_on_sigterm)
from evalui.errors import InputError
from evalui.jsonl import write_jsonl


def register(benchmarks) -> None:
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

    run = commands.add_parser("run", help="run BFCL against an OpenAI-compatible endpoint")
    run.add_argument("--category", required=True,
                     help="one category or several, comma-separated; 'all': the whole leaderboard set (BFCL v4 "
                          "overall: non-live, live, irrelevance, multi-turn, memory and web search)")
    run.add_argument("--limit", type=int, help="at most N samples per category (0: all)")
    run.add_argument("--mode", choices=("fc", "prompt"), default="fc",
                     help="fc: native tool calls; prompt: the model writes [func(param=value)]")
    run.add_argument("--web-search", default="", help="web search categories: serpapi (SERPAPI_API_KEY), searxng "
                     "(EVALUI_WEB_SEARCH_URL) or module:attr; by default picked from the environment")
    run.add_argument("--web-record", default="", metavar="DIR", help="store every web search and fetch in DIR")
    run.add_argument("--web-replay", default="", metavar="DIR",
                     help="answer web searches and fetches from a recording in DIR, never going online")
    add_endpoint_flags(run)
    add_run_flags(run, epochs=True)
    run.set_defaults(handler=run_run)


def run_score(args) -> int:
    from evalui.benchmarks.bfcl.score_file import score_result_file
    from evalui.cli import print_summary

    verdicts, summary = score_result_file(args.results, args.category, fc_names_underscored=not args.fc_names_dotted)
    if args.out:
        write_jsonl(args.out, verdicts)
    print_summary(summary)
    return 0


def run_run(args) -> int:
    interrupt_on_sigterm()
    from evalui.benchmarks.bfcl.run import execute_bfcl_run, prepare_bfcl_run
    from evalui.cli import print_summary
    from evalui.engine.epochs import add_epochs
    from evalui.engine.store import RunStore

    settings = endpoint_from_args(args)
    if args.limit is not None and args.limit < 0:
        raise InputError("--limit must be 0 (all samples) or more")
    store = RunStore()
    try:
        exp_id = prepare_bfcl_run(store, settings, args.category.split(","), limit=args.limit or None,
                                  mode=args.mode, exp_id=args.exp_id, concurrency=args.concurrency,
                                  requests_per_minute=args.rpm, out=args.out, web_search=args.web_search,
                                  web_record=args.web_record, web_replay=args.web_replay)
        add_epochs(store, exp_id, args.epochs)
        apply_budget(store, exp_id, args)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    bar = ProgressBar(f"BFCL {exp_id}")
    try:
        summary = execute_bfcl_run(store, settings, exp_id, concurrency=args.concurrency,
                                   requests_per_minute=args.rpm, on_progress=bar)
    finally:
        bar.close()
    print_summary({key: summary[key] for key in
                   ("exp_id", "total", "correct", "accuracy", "errors", "duration_s", "out_dir", "status", "by_category", "leaderboard",
                    "epochs", "cost") if key in summary})
    return 0
