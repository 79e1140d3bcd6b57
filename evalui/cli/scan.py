"""``evalui scan EXP [--scanner NAME]``: run the validity scanners over a stored run, with no model call."""

from __future__ import annotations

from evalui.errors import InputError


def register(commands) -> None:
    from evalui.cli.common import add_database_flag

    parser = commands.add_parser("scan", help="run the validity scanners over a stored run again (no model call) "
                                 "and write its summary and exports anew")
    parser.add_argument("exp", metavar="EXP", help="exp id of the stored run")
    parser.add_argument("--scanner", metavar="NAME", action="append",
                        help="only this scanner (repeat for several; default: every automatic one)")
    parser.add_argument("--list", type=int, default=20, metavar="N", help="print at most N findings (default 20)")
    add_database_flag(parser)
    parser.set_defaults(handler=run_scan)


def run_scan(args) -> int:
    from evalui.cli.common import stored_run_operation
    from evalui.cli.summary import print_summary
    from evalui.ops.scan import scan_run

    if args.list < 0:
        raise InputError("--list must be 0 or more")
    with stored_run_operation() as store:
        try:
            done = scan_run(store, args.exp, args.scanner)
        except KeyError as exc:  # an unknown scanner name
            raise InputError(str(exc.args[0])) from None
    print(summary_text(done, args.list))
    print_summary(done)
    return 0


def summary_text(done: dict, limit: int) -> str:
    from evalui.cli.common import share

    validity = done.get("validity") or {}
    lines = [f"{done['exp_id']}: {len(done['findings'])} findings on {done['samples']} samples by "
             f"{', '.join(done['scanners']) or 'no scanner'}; {len(done['changed'])} samples changed",
             f"accuracy {share(done.get('accuracy'))} (raw); valid-sample accuracy {share(validity.get('valid_accuracy'))}"
             f" over {validity.get('valid', 0)} samples, {validity.get('invalid', 0)} invalid"]
    for name, counts in done["by_scanner"].items():
        if counts:
            lines.append(f"  {name}: " + ", ".join(f"{n} {severity}" for severity, n in sorted(counts.items())))
    for item in done["findings"][:limit]:
        step = "" if item["step"] is None else f" step {item['step']}"
        lines.append(f"  {item['id']}{step}: {item['scanner']} ({item['severity']}): {item['message']}")
    if len(done["findings"]) > limit:
        lines.append(f"  … and {len(done['findings']) - limit} more (all of them are in the JSON line)")
    return "\n".join(lines)
