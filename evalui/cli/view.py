"""``evalui view EXP --out DIR``: a stored run as the viewer's static, read-only bundle (one HTML file
and its JSON data) to share without a server."""

from __future__ import annotations


def register(commands) -> None:
    from evalui.cli.common import add_database_flag

    parser = commands.add_parser("view", help="write a stored run as a static, read-only viewer (index.html + "
                                 "data.json) that opens offline in a browser")
    parser.add_argument("exp", metavar="EXP", help="exp id of the stored run")
    parser.add_argument("--out", metavar="DIR", required=True, help="the folder to write index.html and data.json to")
    add_database_flag(parser)
    parser.set_defaults(handler=run_view)


def run_view(args) -> int:
    from evalui.cli.common import stored_run_operation
    from evalui.cli.summary import print_summary
    from evalui.viewer.bundle import write_bundle
    from evalui.viewer.data import UnknownRun

    with stored_run_operation(UnknownRun) as store:
        done = write_bundle(store, args.exp, args.out)
    print(f"{done['exp_id']}: {done['samples']} samples written to {done['files'][0]} (open it in a browser)")
    print_summary(done)
    return 0
