"""``evalui runs list | show EXP | delete EXP``: the Runs tab's operations on the command line."""

from __future__ import annotations

import sys
from datetime import datetime

from evalui.errors import InputError


def register(commands) -> None:
    from evalui.cli.common import add_database_flag

    parser = commands.add_parser("runs", help="list, show or delete stored runs")
    actions = parser.add_subparsers(dest="command", required=True)
    listing = actions.add_parser("list", help="every stored run, newest first, one line each")
    listing.add_argument("--benchmark", help="only runs of this benchmark")
    add_database_flag(listing)
    listing.set_defaults(handler=run_list)
    show = actions.add_parser("show", help="one run: its status, counts, headline, validity, cost and files")
    show.add_argument("exp", metavar="EXP", help="exp id of the stored run")
    add_database_flag(show)
    show.set_defaults(handler=run_show)
    delete = actions.add_parser("delete", help="remove a run from the store, with its folder when it is evalui's own")
    delete.add_argument("exp", metavar="EXP", help="exp id of the stored run")
    delete.add_argument("--yes", action="store_true", help="delete without asking (needed when not at a terminal)")
    add_database_flag(delete)
    delete.set_defaults(handler=run_delete)


def _when(timestamp: float | None) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M") if timestamp else ""


def _line(store, experiment: dict) -> dict:
    from evalui.ops.history import headline

    counts = store.progress(experiment["exp_id"])
    label, value = headline(experiment)
    return {"exp_id": experiment["exp_id"], "benchmark": experiment["benchmark"], "model": experiment["model"],
            "status": experiment["status"], "created": _when(experiment.get("created_at")),
            "done": counts["judged"], "total": counts["total"], "correct": counts["correct"], "errors": counts["errors"],
            "headline": {"label": label, "value": value} if label else None}


def run_list(args) -> int:
    from evalui.cli.common import share, stored_run_operation
    from evalui.cli.summary import print_summary

    with stored_run_operation() as store:
        lines = [_line(store, e) for e in store.experiments(args.benchmark)]
    for line in lines:
        figure = f"{line['headline']['label']} {share(line['headline']['value'])}" if line["headline"] else ""
        print(f"{line['exp_id']:<40} {line['benchmark']:<14} {line['model'][:28]:<28} {line['status']:<11} "
              f"{line['done']}/{line['total']:<8} {figure}")
    print_summary({"runs": lines})
    return 0


def run_show(args) -> int:
    from evalui.cli.common import share, stored_run_operation
    from evalui.cli.summary import print_summary

    with stored_run_operation() as store:
        experiment = store.experiment(args.exp)
        if experiment is None:
            raise InputError(f"no stored run {args.exp!r} (evalui runs list shows them)")
        line = _line(store, experiment)
    summary = experiment.get("summary") or {}
    print(f"{line['exp_id']}: {line['benchmark']} with {line['model']} at {experiment['endpoint_host']}, "
          f"{line['status']}, {line['done']}/{line['total']} judged, {line['errors']} failed")
    if line["headline"]:
        print(f"  {line['headline']['label']}: {share(line['headline']['value'])}")
    validity = summary.get("validity") or {}
    if validity.get("valid_accuracy") is not None:
        print(f"  on valid samples: {share(validity['valid_accuracy'])} ({validity.get('invalid', 0)} invalid)")
    if summary.get("out_dir"):
        print(f"  files: {summary['out_dir']}")
    print_summary({**line, "endpoint": experiment["endpoint_host"], "out_dir": summary.get("out_dir"),
                   "summary": summary or None})
    return 0


def run_delete(args) -> int:
    from evalui.cli.common import stored_run_operation
    from evalui.cli.summary import print_summary
    from evalui.ops.history import delete_run

    if not args.yes:
        if not sys.stdin.isatty():
            raise InputError(f"deleting {args.exp} removes its samples and its folder: add --yes to confirm")
        if input(f"Delete run {args.exp} and its folder? [y/N] ").strip().lower() not in ("y", "yes"):
            print("kept")
            return 1
    with stored_run_operation() as store:
        delete_run(store, args.exp)
    print_summary({"deleted": args.exp})
    return 0
