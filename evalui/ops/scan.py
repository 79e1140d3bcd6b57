"""Scan a stored run again, offline: the validity scanners over its stored samples, no model call.

The findings are written back to the store, and the run's summary (with ``validity``) and exports
are written again from them, as ``evalui rescore`` does for verdicts. What differs from the
findings stored before is listed: on an unchanged run and scanner version, nothing (``unsolvable``
follows the runs stored since).
"""

from __future__ import annotations

from evalui.ops.stored_checks import check_verdicts
from evalui.run import findings, lifecycle
from evalui.store.run_store import RunStore


class UnknownRun(ValueError):
    pass


def _key(finding: dict) -> tuple:
    return finding.get("scanner"), finding.get("severity"), finding.get("message"), finding.get("step")


def scan_run(store: RunStore, exp_id: str, names: list[str] | None = None) -> dict:
    """Run the named scanners (default: every automatic one) over the stored run ``exp_id``."""
    experiment = store.experiment(exp_id)
    if experiment is None:
        raise UnknownRun(f"no stored run {exp_id!r}")
    samples = store.samples(exp_id)
    check_verdicts(exp_id, samples)
    before = {s.sample_id: findings.stored_findings(s) for s in samples}
    chosen = findings.scan(store, experiment, samples, names)  # KeyError for an unknown scanner name
    ran = {s.name for s in chosen}
    listed, changed = [], []
    for sample in samples:
        mine = [f for f in sample.findings or [] if f["scanner"] in ran]
        listed += [{"id": sample.sample_id, "group": sample.group, **f} for f in mine]
        stored = before[sample.sample_id]
        if sample.stage == "judged" and stored is not None \
                and sorted(map(_key, mine)) != sorted(_key(f) for f in stored if f.get("scanner") in ran):
            changed.append(sample.sample_id)
    findings.keep(store, exp_id, samples)
    summary = lifecycle.export(store, exp_id)
    by_scanner: dict[str, dict[str, int]] = {name: {} for name in ran}
    for item in listed:
        counts = by_scanner[item["scanner"]]
        counts[item["severity"]] = counts.get(item["severity"], 0) + 1
    return {"exp_id": exp_id, "benchmark": experiment["benchmark"], "scanners": {s.name: s.version for s in chosen},
            "samples": len(samples), "findings": listed, "by_scanner": by_scanner, "changed": changed,
            "accuracy": summary.get("accuracy"), "ci95": summary.get("ci95"), "validity": summary.get("validity"),
            "out_dir": summary.get("out_dir")}
