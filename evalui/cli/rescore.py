"""``evalui rescore EXP [--scorer NAME]``: judge a stored run again, with no model call."""

from __future__ import annotations


def register(commands) -> None:
    from evalui.cli.common import add_database_flag

    parser = commands.add_parser("rescore", help="judge a stored run's replies again (no model call) and "
                                 "write its exports anew")
    parser.add_argument("exp", metavar="EXP", help="exp id of the stored run")
    parser.add_argument("--scorer", metavar="NAME", help="one of the benchmark's scorers (default: its first, "
                        "the one runs judge with)")
    add_database_flag(parser)
    parser.set_defaults(handler=run_rescore)


def run_rescore(args) -> int:
    from evalui.cli.common import stored_run_operation
    from evalui.cli.summary import print_summary
    from evalui.ops.rescore import rescore

    with stored_run_operation() as store:  # an unknown run or scorer is one line
        done = rescore(store, args.exp, args.scorer)
    print(f"{done['exp_id']}: {done['rescored']} samples judged again by {done['scorer']} ({done['scorer_version']}); "
          f"{done['changed']} changed")
    for flip in done["flipped"][:20]:
        print(f"  {flip['id']}: {'correct' if flip['before'] else 'wrong'} -> {'correct' if flip['after'] else 'wrong'}"
              f" ({flip['error_type'] or '-'})")
    print_summary(done)
    return 0
