"""``evalui export inspect EXP [--out FILE]``: a stored run as another tool's log."""

from __future__ import annotations


def register(commands) -> None:
    from evalui.cli.common import add_database_flag

    parser = commands.add_parser("export", help="write a stored run in another tool's format (inspect)")
    formats = parser.add_subparsers(dest="format", required=True, metavar="{inspect}")
    inspect = formats.add_parser("inspect", help="an Inspect AI eval log (.eval or .json), read by inspect_ai and "
                                 "its viewer; needs inspect_ai installed")
    inspect.add_argument("exp", metavar="EXP", help="exp id of the stored run")
    inspect.add_argument("--out", metavar="FILE", help="the log file, ending in .eval (default) or .json "
                         "(default: <the run's folder>/EXP.eval)")
    add_database_flag(inspect)
    inspect.set_defaults(handler=run_inspect)


def run_inspect(args) -> int:
    from evalui.cli.common import stored_run_operation
    from evalui.cli.summary import print_summary
    from evalui.export.inspect_log import UnknownRun, export_inspect, require_inspect

    require_inspect()  # said before a store is opened
    with stored_run_operation(UnknownRun) as store:
        done = export_inspect(store, args.exp, args.out)
    print(f"{done['exp_id']}: {done['samples']} samples ({done['scored']} scored) written to {done['out']}")
    print_summary(done)
    return 0
