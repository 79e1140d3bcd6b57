"""The findings of a stored run as the inspector shows them, and reviewers' labels of them.

A judged sample's findings are the ones the store keeps in its verdict; a sample that never got a
verdict (an endpoint error) keeps its own in its row, stored when the run's summary scanned it
(evalui.run.findings): reading them scans nothing. Labels go to the run's folder (evalui.scanners.labels),
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


def stored_findings(sample) -> list[dict]:
    """The findings the store keeps for a sample ([] for none, or never scanned): a judged sample's in
    its verdict, a never-judged one's (an endpoint error) in its row, as the run's summary stored them."""
    found = findings.stored_findings(sample) if sample.stage == "judged" else sample.findings
    return list(found or [])


def run_findings(store: RunStore, experiment: dict, samples: list) -> dict[str, list[dict]]:
    """Every sample's stored findings by id ([] for none): read, never scanned again."""
    return {s.sample_id: stored_findings(s) for s in samples}


def precision(store: RunStore, exp_id: str) -> dict[str, dict]:
    """Each scanner's precision from the labels of the findings the run has now (see label_precision)."""
    experiment = store.experiment(exp_id) if exp_id else None
    if experiment is None:
        return {}
    labels = read_labels(folder_of(experiment))
    if not labels:  # most runs: nothing to read
        return {}
    # Only the labelled samples are read (a label names its sample), not the whole run.
    labelled = store.samples_by_id(exp_id, sorted({str(entry.get("sample_id")) for entry in labels.values()}))
    return label_precision(labels, run_findings(store, experiment, list(labelled.values())))


def label_finding(store: RunStore, exp_id: str, sample_id: str, number: int, label: str, reviewer: str) -> dict:
    """Label the ``number``-th finding (from 1, as the inspector lists them) of a sample."""
    reviewer = clean_name(reviewer)
    if label not in LABELS:
        raise InputError(f"a finding's label is one of {', '.join(LABELS)}, not {label!r}")
    experiment = store.experiment(exp_id) if exp_id else None
    one = store.sample(exp_id, sample_id) if experiment else None
    sample = [one] if one is not None else []
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
