"""``evalui compare A B``: run B against run A (the baseline), paired by sample id."""

from __future__ import annotations

from evalui.errors import InputError


def register(commands) -> None:
    parser = commands.add_parser("compare", help="compare two stored runs sample by sample (McNemar, paired CI)")
    parser.add_argument("a", metavar="A", help="exp id of the baseline run")
    parser.add_argument("b", metavar="B", help="exp id of the run compared with it")
    parser.add_argument("--flips", type=int, default=20, help="list at most this many flipped samples (default 20)")
    parser.set_defaults(handler=run_compare)


def run_compare(args) -> int:
    from evalui.cli.summary import print_summary
    from evalui.reports.comparison import CannotCompare, compare_runs
    from evalui.store.run_store import RunStore

    if args.flips < 0:
        raise InputError("--flips must be 0 or more")
    store = RunStore()
    try:
        record = compare_runs(store, args.a, args.b, calibrated=current_calibration(store))
    except CannotCompare as exc:
        raise InputError(str(exc)) from None
    finally:
        store.close()
    print(summary_text(record, args.flips))
    print_summary(record)
    return 0


def current_calibration(store):
    """A run's figures corrected by its reviews as they are now (reviews usually come after the run),
    for runs whose summary carries them; evalui.reports.comparison reads only what the summary stored."""
    from evalui.review.calibration import run_calibration

    def calibrated(experiment: dict) -> dict | None:
        if not (experiment.get("summary") or {}).get("calibrated"):
            return None
        predictions = [s.prediction for s in store.samples(experiment["exp_id"], stages=("judged",))]
        return run_calibration(experiment, predictions)

    return calibrated


def calibrated_text(record: dict) -> list[str]:
    """The figures corrected by the reviews, B against A, when both runs have reviews: the ones to read."""
    block = record.get("calibrated")
    if not block:
        return []
    if not block.get("figures"):
        return [f"not corrected by reviews: {block.get('reason') or 'no figure on both sides'}"]
    lines = [f"corrected by the reviews ({block['a_reviewed']} reviewed in A, {block['b_reviewed']} in B):"]
    for name, f in block["figures"].items():
        scale, unit = (1, "") if name == "mean_score" else (100, " pts")

        def value(x, name=name):
            return f"{x:.2f}" if name == "mean_score" else f"{x:.1%}"

        ci = "–" if f["diff_ci"] is None else f"[{f['diff_ci'][0] * scale:+.1f}, {f['diff_ci'][1] * scale:+.1f}]{unit}"
        lines.append(f"  {name.replace('_', ' '):<11} A {value(f['a'])} ({f['a_estimate'].replace('_', ' ')}) "
                     f"B {value(f['b'])} ({f['b_estimate'].replace('_', ' ')}) diff {f['diff'] * scale:+.1f}{unit} "
                     f"95% CI {ci}{' significant' if f['significant'] else ''}")
    lines.append("the judge's own figures, paired by sample id:")
    return lines


def summary_text(record: dict, flips: int) -> str:
    """What a person reads above the JSON line: the figures per group and the first flipped samples."""
    from evalui.cli.common import share

    def interval(bounds):
        return "–" if not bounds else f"[{bounds[0]:+.3f}, {bounds[1]:+.3f}]"

    lines = [f"{record['benchmark']}: {record['b']} ({record['b_model']}) against {record['a']} ({record['a_model']})",
             *calibrated_text(record),
             f"{'group':<28} {'n':>5} {'A':>7} {'B':>7} {'diff':>8} {'95% CI':>18} {'→wrong':>7} {'→right':>7} {'p':>8}"]
    rows = [("all", record), *record["by_group"].items()] if record["by_group"] else [("all", record)]
    for name, g in rows:
        diff = "–" if g["diff"] is None else f"{g['diff']:+.3f}"
        p_value = "–" if g["mcnemar_p"] is None else f"{g['mcnemar_p']:.4g}"
        lines.append(f"{str(name)[:28]:<28} {g['n']:>5} {share(g['a_accuracy']):>7} {share(g['b_accuracy']):>7} "
                     f"{diff:>8} {interval(g['diff_ci']):>18} {g['flipped_to_wrong']:>7} {g['flipped_to_correct']:>7} "
                     f"{p_value:>8}")
    valid = record.get("valid")
    if valid:  # beside the raw figures: the pairs no validity scanner found invalid in either run
        diff = "–" if valid["diff"] is None else f"{valid['diff']:+.3f}"
        p_value = "–" if valid["mcnemar_p"] is None else f"{valid['mcnemar_p']:.4g}"
        lines.append(f"{'valid samples only':<28} {valid['n']:>5} {share(valid['a_accuracy']):>7} "
                     f"{share(valid['b_accuracy']):>7} {diff:>8} {interval(valid['diff_ci']):>18} "
                     f"{valid['flipped_to_wrong']:>7} {valid['flipped_to_correct']:>7} {p_value:>8}"
                     f"  ({valid['invalid_pairs']} invalid pairs left out)")
    listed = [(direction, f) for direction in ("to_wrong", "to_correct") for f in record["flipped"][direction]]
    for direction, flip in listed[:flips]:
        lines.append(f"  flipped {direction.replace('_', ' ')}: {flip['id']} ({flip['group']}): {flip['a']} → {flip['b']}")
    if len(listed) > flips:
        lines.append(f"  … and {len(listed) - flips} more flipped samples (all of them are in the JSON line)")
    return "\n".join(lines)
