"""The validity scanners (evalui.scanners) over a stored run: run them, keep what they find, count it.

They run whenever a run's summary is made (so after every run, every resume and every rescore,
and by whichever worker writes the exports) and again with ``evalui scan``; they only read what
the store holds, so the same run gives the same findings offline. A judged sample's findings are
kept in its verdict (``verdict["findings"]``); a sample that never got a verdict (an endpoint
error) is scanned again from its stored error each time. Findings of scanners that only run when
named (an LLM scanner) are kept when the automatic ones run again.
"""

from __future__ import annotations

from evalui.errors import InputError
from evalui.scanners.base import ScanContext, Scanner
from evalui.scanners.labels import label_precision, read_labels
from evalui.scanners.registry import scan_sample, selected
from evalui.scanners.validity import validity_figures
from evalui.stats.epochs import split_epoch
from evalui.store.run_store import RunStore, Sample


def stored_findings(sample: Sample) -> list[dict] | None:
    """What the store keeps for a sample (None: never scanned, or not judged)."""
    found = (sample.verdict or {}).get("findings") if sample.stage == "judged" else None
    return found if isinstance(found, list) else None


def spec_of(benchmark: str):
    """The benchmark's spec for the scanners (its declared material and target); None when its spec
    cannot be loaded (a stored run of a benchmark no longer installed is still scanned, reading its
    whole prompt as the question)."""
    from evalui.core import registry

    return registry.find(benchmark)


def context_for(store: RunStore, experiment: dict) -> ScanContext:
    """The run, its benchmark's declared material, and for each sample id which other models' stored
    runs solved it (``unsolvable``)."""
    model = experiment.get("model") or ""
    others = {e["exp_id"]: e.get("model") or e["exp_id"] for e in store.experiments(experiment["benchmark"])
              if e["exp_id"] != experiment["exp_id"] and (e.get("model") or e["exp_id"]) != model}
    solved: dict[str, dict[str, bool]] = {}
    for exp_id, sample_id, correct in store.judged_outcomes(others):
        by_model = solved.setdefault(split_epoch(sample_id)[0], {})
        by_model[others[exp_id]] = by_model.get(others[exp_id], False) or correct
    spec = spec_of(experiment["benchmark"])
    return ScanContext(benchmark=experiment["benchmark"], exp_id=experiment["exp_id"], model=model, others=solved,
                       material=spec.material if spec is not None else None,
                       target=spec.target if spec is not None else None)


def scan(store: RunStore, experiment: dict, samples: list[Sample], names: list[str] | None = None) -> list[Scanner]:
    """Scan ``samples`` with the named scanners (default: every automatic one that applies) and set each
    sample's ``findings``: the fresh findings, then the stored ones of scanners that did not run.
    Returns the scanners that ran."""
    chosen = selected(names, experiment["benchmark"])
    ran = {s.name for s in chosen}
    context = context_for(store, experiment)
    for sample in samples:
        kept = [f for f in stored_findings(sample) or [] if f.get("scanner") not in ran]
        sample.findings = scan_sample(sample, context, chosen) + kept
    return chosen


def keep(store: RunStore, exp_id: str, samples: list[Sample]) -> int:
    """Store the findings of the judged samples whose stored ones differ; returns how many changed."""
    changed = {}
    for sample in samples:
        if sample.stage == "judged" and sample.findings is not None and stored_findings(sample) != sample.findings:
            sample.verdict = {**(sample.verdict or {}), "findings": sample.findings}
            changed[sample.sample_id] = sample.verdict
    # A never-judged sample's findings are kept in its row too, so the viewer reads them, never scans.
    errors = {s.sample_id: s.findings for s in samples if s.stage != "judged" and s.error and s.findings is not None}
    store.record_findings(exp_id, changed, errors)
    return len(changed)


def validity(samples: list[Sample], scanners: list[Scanner], folder=None, rule=None) -> dict:
    """summary.json's ``validity`` for samples already scanned; with the run's folder, each scanner's
    precision from the reviewers' labels of these findings (evalui.scanners.labels). ``rule``: the
    benchmark's cluster rule, for the valid-sample interval."""
    found = {s.sample_id: s.findings or [] for s in samples}
    figures = validity_figures(samples, found, {s.name: s.version for s in scanners}, rule)
    try:
        figures["label_precision"] = label_precision(read_labels(folder), found)
    except InputError:  # an unreadable labels file: the run's exports are still written (saving a label says why)
        figures["label_precision"] = {}
    return figures
