"""The findings of a stored run as the inspector shows them, and reviewers' labels of them.

A judged sample's findings are the ones the store keeps in its verdict; a sample that never got a
verdict (an endpoint error) keeps none, so it is scanned again from its stored error, as the run's
export does (evalui.run.findings). Labels go to the run's folder (evalui.scanners.labels),
each under a reviewer's checked name, as the verification panel's reviews are.
"""

from __future__ import annotations

from pathlib import Path

from evalui.errors import InputError
from evalui.review.names import clean_name
from evalui.run import findings
from evalui.run.experiment import run_folder
from evalui.scanners.labels import LABELS, label_precision, read_labels, save_label
from evalui.store.run_store import RunStore


def folder_of(experiment: dict) -> Path:
    """Where the run's exports (and its labels) are: the folder its summary was written to."""
    out = experiment.get("out_dir") or (experiment.get("summary") or {}).get("out_dir")
    return Path(out) if out else run_folder(experiment["exp_id"], None)


def run_findings(store: RunStore, experiment: dict, samples: list) -> dict[str, list[dict]]:
    """Every sample's findings by id ([] for none)."""
    found = {s.sample_id: findings.stored_findings(s) for s in samples}
    unstored = [s for s in samples if found[s.sample_id] is None and s.stage != "judged" and s.error]
    if unstored:
        findings.scan(store, experiment, unstored)
        found.update({s.sample_id: s.findings for s in unstored})
    return {sample_id: list(items or []) for sample_id, items in found.items()}


def precision(store: RunStore, exp_id: str) -> dict[str, dict]:
    """Each scanner's precision from the labels of the findings the run has now (see label_precision)."""
    experiment = store.experiment(exp_id) if exp_id else None
    if experiment is None:
        return {}
    return label_precision(read_labels(folder_of(experiment)), run_findings(store, experiment, store.samples(exp_id)))


def label_finding(store: RunStore, exp_id: str, sample_id: str, number: int, label: str, reviewer: str) -> dict:
    """Label the ``number``-th finding (from 1, as the inspector lists them) of a sample."""
    reviewer = clean_name(reviewer)
    if label not in LABELS:
        raise InputError(f"a finding's label is one of {', '.join(LABELS)}, not {label!r}")
    experiment = store.experiment(exp_id) if exp_id else None
    sample = [s for s in store.samples(exp_id) if s.sample_id == sample_id] if experiment else []
    if not sample:
        raise InputError(f"no sample {sample_id!r} in run {exp_id!r}")
    found = run_findings(store, experiment, sample)[sample_id]
    if not 1 <= number <= len(found):
        raise InputError(f"sample {sample_id!r} has no finding {number}")
    return save_label(folder_of(experiment), sample_id, found[number - 1], label, reviewer)


def precision_text(figures: dict[str, dict]) -> str:
    """One line: each labelled scanner's precision, with its counts."""
    def share(value):
        return "–" if value is None else f"{value:.0%}"

    return " · ".join(f"{name} {share(f['precision'])} ({f['confirmed']} confirmed, {f['false_alarm']} false alarm)"
                      for name, f in figures.items())
