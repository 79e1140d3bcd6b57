"""Two stored runs compared sample by sample: the figures `evalui compare`, the Runs tab and the CI
gate all show, read from the store and computed by evalui.stats.paired."""

from __future__ import annotations

import math
from collections.abc import Callable

from evalui.reports.clusters import cluster_rule
from evalui.reports.markdown import inert, percent
from evalui.reports.texts import Words, english, method, named
from evalui.reports.verdicts import verdict_of
from evalui.stats.clustered import cluster_key, clustered_accuracy
from evalui.stats.metrics import Z_95
from evalui.stats.paired import compare_outcomes, flipped
from evalui.store.run_store import RunStore


class CannotCompare(ValueError):
    """The two runs cannot be compared: one is missing, they are different benchmarks, or share no sample."""


_OUTCOMES = {"correct": True, "wrong": False, "error": False}


def outcome(sample) -> bool | None:
    """True, False, or None for "nothing to compare". An endpoint error is False: errors never pass.
    ``sample``: a stored Sample, or a light row (evalui.store.light.SampleRow, Outcome)."""
    word = sample.verdict if isinstance(sample.verdict, str) else verdict_of(sample)
    return _OUTCOMES.get(word)


def outcome_word(value: bool | None, sample=None) -> str:
    if value is None:
        return "–"
    if value:
        return "correct"
    return "error" if sample is not None and sample.stage != "judged" else "wrong"


def stored_calibration(experiment: dict) -> dict | None:
    """The judge's figures corrected by the reviews as the run's summary holds them (``calibrated``,
    written when the run was last exported); None for a run whose summary has none."""
    block = (experiment.get("summary") or {}).get("calibrated")
    return block if isinstance(block, dict) and "error" not in block else None


def compare_runs(store: RunStore, a_id: str, b_id: str,
                 calibrated: Callable[[dict], dict | None] = stored_calibration) -> dict:
    """B against A (A is the baseline): paired figures, per group, and the flipped samples.
    Reads each sample's id, group, verdict and stored findings (store.sample_outcomes), not its contents.

    Runs of an LLM judge whose items humans review carry figures corrected by the reviews:
    ``calibrated`` gives a run's (default: the block its summary stored; the CLI passes one that reads
    the reviews as they are now). When both runs have reviewed items, ``calibrated`` in the record
    compares their corrected figures (``calibrated_difference``), which is then what to read."""
    experiments = {}
    for exp_id in (a_id, b_id):
        experiment = store.experiment(exp_id) if exp_id else None
        if experiment is None:
            raise CannotCompare(f"no run named {exp_id!r}")
        experiments[exp_id] = experiment
    benchmark_a, benchmark_b = experiments[a_id]["benchmark"], experiments[b_id]["benchmark"]
    if benchmark_a != benchmark_b:
        raise CannotCompare(f"{a_id} is a {benchmark_a} run and {b_id} a {benchmark_b} run: compare runs of one benchmark")
    samples_a = {r.sample_id: r for r in store.sample_outcomes(a_id)}
    samples_b = {r.sample_id: r for r in store.sample_outcomes(b_id)}
    outcomes_a = {i: outcome(s) for i, s in samples_a.items()}
    outcomes_b = {i: outcome(s) for i, s in samples_b.items()}
    groups = {i: s.group for i, s in samples_a.items()}
    comparison = compare_outcomes(outcomes_a, outcomes_b, groups)
    if comparison.n == 0:
        raise CannotCompare(f"{a_id} and {b_id} have no sample with an outcome in both runs")
    flips = flipped(outcomes_a, outcomes_b)
    paired = [i for i in outcomes_a if outcomes_a[i] is not None and outcomes_b.get(i) is not None]

    rule = cluster_rule(benchmark_a)
    clusters = {i: cluster_key(i, rule) for i in paired}  # once: four intervals read them

    def interval(outcomes: dict, ids: list[str] = paired) -> list[float]:
        """95 % interval of a run's accuracy over the paired samples, clustered as the run summary's."""
        found = clustered_accuracy((clusters[i], outcomes[i]) for i in ids)
        return [found.low, found.high]

    # Beside the raw comparison, never in its place: the pairs where neither sample was found invalid.
    invalid = _invalid_ids(store, experiments[a_id], samples_a.values()) | \
        _invalid_ids(store, experiments[b_id], samples_b.values())
    valid_a = {i: o for i, o in outcomes_a.items() if i not in invalid}
    valid_b = {i: o for i, o in outcomes_b.items() if i not in invalid}
    valid = compare_outcomes(valid_a, valid_b).as_dict()
    valid.pop("by_group", None)
    valid_pairs = [i for i in paired if i not in invalid]
    valid.update(invalid_pairs=len(paired) - len(valid_pairs), a_ci95=interval(outcomes_a, valid_pairs),
                 b_ci95=interval(outcomes_b, valid_pairs))

    def described(sample_id: str) -> dict:
        return {"id": sample_id, "group": groups.get(sample_id, ""),
                "a": outcome_word(outcomes_a[sample_id], samples_a[sample_id]),
                "b": outcome_word(outcomes_b[sample_id], samples_b[sample_id])}

    record = {"a": a_id, "b": b_id, "benchmark": benchmark_a,
              "a_model": experiments[a_id]["model"], "b_model": experiments[b_id]["model"],
              **comparison.as_dict(), "a_ci95": interval(outcomes_a), "b_ci95": interval(outcomes_b),
              "only_in_a": sum(1 for i in samples_a if i not in samples_b),
              "only_in_b": sum(1 for i in samples_b if i not in samples_a),
              "flipped": {direction: [described(i) for i in ids] for direction, ids in flips.items()},
              "valid": valid}
    block_a, block_b = calibrated(experiments[a_id]), calibrated(experiments[b_id])
    if block_a is not None or block_b is not None:
        record["calibrated"] = calibrated_difference(block_a, block_b)
    return record


CALIBRATED_FIGURES = ("pass_rate", "mean_score", "win_rate")


def _reviewed(block: dict | None) -> int:
    return int((block or {}).get("n_labelled") or 0)


def _chosen(figure: dict | None) -> dict | None:
    """The estimate a figure says to report (corrected, else reviewers only, else judge only) with a value."""
    if not figure or "estimate" not in figure:
        return None
    estimate = figure.get(figure["estimate"]) or {}
    return estimate if estimate.get("value") is not None else None


def _se(estimate: dict) -> float | None:
    if estimate.get("se") is not None:
        return float(estimate["se"])
    if estimate.get("low") is not None and estimate.get("high") is not None:
        return (estimate["high"] - estimate["low"]) / (2 * Z_95)
    return None


def calibrated_difference(a: dict | None, b: dict | None, z: float = Z_95) -> dict:
    """B against A by each one's figures corrected by its own reviews (``summary.json``'s
    ``calibrated`` blocks): per figure, each run's reported estimate with its 95 % interval, and the
    difference with the normal interval of two independent estimates, d ± z·√(se_A² + se_B²) (the two
    runs' items and reviews are separate samples). Only when both runs have reviewed items; otherwise
    ``reason`` says which has none."""
    missing = [name for name, block in (("A", a), ("B", b)) if not _reviewed(block)]
    if missing or a is None or b is None:
        return {"reason": f"no reviewed items in {' or '.join(missing)}: the judge's own figures are compared",
                "a_reviewed": _reviewed(a), "b_reviewed": _reviewed(b)}
    figures = {}
    for name in CALIBRATED_FIGURES:
        first, second = _chosen(a.get(name)), _chosen(b.get(name))
        if first is None or second is None:
            continue
        diff = second["value"] - first["value"]
        se_a, se_b = _se(first), _se(second)
        spread = None if se_a is None or se_b is None else z * math.sqrt(se_a ** 2 + se_b ** 2)
        figures[name] = {"a": first["value"], "a_ci95": [first["low"], first["high"]],
                         "a_estimate": a[name]["estimate"], "b": second["value"],
                         "b_ci95": [second["low"], second["high"]], "b_estimate": b[name]["estimate"],
                         "diff": diff, "diff_ci": None if spread is None else [diff - spread, diff + spread],
                         "significant": spread is not None and abs(diff) > spread}
    return {"a_reviewed": _reviewed(a), "b_reviewed": _reviewed(b), "figures": figures,
            "method": "each run's figures corrected by its reviews; the difference's interval treats the two as "
                      "independent samples"}


def _invalid_ids(store: RunStore, experiment: dict, rows) -> set[str]:
    """Ids of the samples a validity scanner finds invalid. A judged sample keeps its findings in the
    store (written with every summary and ``evalui scan``): they are read from its light row. The
    others (endpoint errors are scanned from their stored error each time, as `evalui scan` does,
    and samples judged since the last scan) are read in full and scanned now, without the other
    runs' outcomes: those only ever make a warning (``unsolvable``), never an invalid finding, and
    reading them would read every stored run of the benchmark."""
    from evalui.run.findings import spec_of
    from evalui.scanners.base import ScanContext
    from evalui.scanners.registry import scan_sample, selected
    from evalui.scanners.validity import is_invalid

    invalid = {r.sample_id for r in rows if r.stage == "judged" and r.invalid}
    unscanned = [r.sample_id for r in rows if not (r.stage == "judged" and r.invalid is not None)]
    if unscanned:
        chosen = selected(None, experiment["benchmark"])
        spec = spec_of(experiment["benchmark"])
        context = ScanContext(benchmark=experiment["benchmark"], exp_id=experiment["exp_id"],
                              model=experiment.get("model") or "", material=spec.material if spec else None,
                              target=spec.target if spec else None)
        invalid |= {sample_id for sample_id, sample in store.samples_by_id(experiment["exp_id"], unscanned).items()
                    if is_invalid(scan_sample(sample, context, chosen))}
    return invalid


def _signed(value: float | None, words: Words = english) -> str:
    return "–" if value is None else words("cmp.points", value=f"{value * 100:+.1f}")


def _interval(bounds, words: Words = english) -> str:
    # An undefined bound (no sample on a side) leaves the whole interval undefined: "–", never "[–, –]".
    if not bounds or None in bounds:
        return "–"
    return words("cmp.points", value=f"[{bounds[0] * 100:+.1f}, {bounds[1] * 100:+.1f}]")


def _accuracy_interval(bounds, words: Words = english) -> str:
    return "" if not bounds or None in bounds else words("cmp.accuracy_ci", low=percent(bounds[0]),
                                                         high=percent(bounds[1]))


def _p(value: float | None) -> str:
    return "–" if value is None else f"{value:.4g}"


def _figure(value: float | None, name: str) -> str:
    return "–" if value is None else percent(value) if name != "mean_score" else f"{value:.2f}"


def calibrated_lines(record: dict, words: Words = english) -> list[str]:
    """The comparison by the figures corrected by the reviews, first when both runs have reviews."""
    block = record.get("calibrated")
    if not block:
        return []
    if not block.get("figures"):
        # Said from the counts (the record's reason is English): which run has no reviewed item.
        missing = [side for side, key in (("A", "a_reviewed"), ("B", "b_reviewed")) if not block.get(key)]
        reason = words("cmp.no_reviews", sides=words("cmp.or").join(missing)) if missing else words("cmp.no_figure")
        return [words("cmp.not_corrected", reason=reason), ""]
    lines = [words("cmp.corrected", a=block["a_reviewed"], b=block["b_reviewed"]), "",
             words("cmp.corrected_table"), "|---|---|---|---|---|---|"]
    for name, f in block["figures"].items():
        scale = 1 if name == "mean_score" else 100

        def points(value: str, name=name) -> str:
            return value if name == "mean_score" else words("cmp.points", value=value)

        def shown(value, ci, estimate, name=name):
            bounds = "" if ci[0] is None or ci[1] is None else f" ({_figure(ci[0], name)}–{_figure(ci[1], name)})"
            return f"{_figure(value, name)}{bounds} {named(words, 'cmp.estimate', estimate)}"

        ci = "–" if f["diff_ci"] is None or None in f["diff_ci"] else \
            points(f"[{f['diff_ci'][0] * scale:+.1f}, {f['diff_ci'][1] * scale:+.1f}]")
        diff = points(f"{f['diff'] * scale:+.1f}")
        lines.append(f"| {named(words, 'cmp.figure', name)} | {shown(f['a'], f['a_ci95'], f['a_estimate'])} | "
                     f"{shown(f['b'], f['b_ci95'], f['b_estimate'])} | {diff} | {ci} | "
                     f"{words('cmp.significant' if f['significant'] else 'cmp.not_significant')} |")
    return [*lines, "", words("cmp.judge_figures"), ""]


def comparison_markdown(record: dict, words: Words = english) -> str:
    """The comparison as Markdown: the figures corrected by reviews when both runs have them, the
    headline figures, then one row per group. ``words``: evalui.reports.texts's, in a visitor's language."""
    verdict = words("cmp.worse" if record["significant"] and record["diff"] < 0 else
                    "cmp.better" if record["significant"] else "cmp.same")
    lines = [
        *calibrated_lines(record, words),
        words("cmp.headline", b=inert(record["b"]), a=inert(record["a"]), n=record["n"],
              a_accuracy=percent(record["a_accuracy"]) + _accuracy_interval(record.get("a_ci95"), words),
              b_accuracy=percent(record["b_accuracy"]) + _accuracy_interval(record.get("b_ci95"), words),
              diff=_signed(record["diff"], words), ci=_interval(record["diff_ci"], words),
              p=_p(record["mcnemar_p"]), verdict=verdict),
        "",
        words("cmp.flips", to_wrong=record["flipped_to_wrong"], to_correct=record["flipped_to_correct"],
              only_a=record["only_in_a"], only_b=record["only_in_b"]),
        "",
        *_valid_line(record.get("valid"), words),
        words("cmp.table"),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, g in record["by_group"].items():
        lines.append(f"| {inert(name) or '–'} | {g['n']} | {percent(g['a_accuracy'])} | {percent(g['b_accuracy'])} | "
                     f"{_signed(g['diff'], words)} | {_interval(g['diff_ci'], words)} | {g['flipped_to_wrong']} | "
                     f"{g['flipped_to_correct']} | {_p(g['mcnemar_p'])} |")
    lines += ["", words("cmp.methods", interval=method(words, record["interval_method"]),
                        test=method(words, record["test_method"]))]
    return "\n".join(lines)


def _valid_line(valid: dict | None, words: Words = english) -> list[str]:
    """The same comparison without the pairs a validity scanner found invalid in either run."""
    if not valid:
        return []
    return [words("cmp.valid", n=valid["n"], left_out=valid["invalid_pairs"],
                  a_accuracy=percent(valid["a_accuracy"]) + _accuracy_interval(valid.get("a_ci95"), words),
                  b_accuracy=percent(valid["b_accuracy"]) + _accuracy_interval(valid.get("b_ci95"), words),
                  diff=_signed(valid["diff"], words), ci=_interval(valid["diff_ci"], words), p=_p(valid["mcnemar_p"])),
            ""]


def flip_choices(record: dict) -> list[tuple[str, str]]:
    """(label, "run::sample") for each flipped sample: it opens in B, the run that changed."""
    return [(f"{f['id']} ({f['group']}): {f['a']} → {f['b']}", f"{record['b']}::{f['id']}")
            for direction in ("to_wrong", "to_correct") for f in record["flipped"][direction]]
