"""What the viewer reads from the store: a run's light rows (filtered, searched, sorted), one sample's
transcript pane with its findings and their labels, and two runs' verdicts for the A/B view.

The store reads are kept in ``_run_samples`` and ``_one_sample`` so that switching to the store's
paged light rows and single-sample read is a one-line change each."""

from __future__ import annotations

import html

from evalui.engine import store_search
from evalui.engine.finding_labels import finding_key, read_labels
from evalui.errors import InputError
from evalui.runs import finding_labels as labelling
from evalui.runs import viewer_rows as rows_
from evalui.runs.inspector_data import finding_choices
from evalui.runs.viewer_transcript import transcript_html


class UnknownRun(InputError):
    """An exp_id the store does not hold (an API caller may send any)."""


def experiment_of(store, exp_id: str | None) -> dict:
    experiment = store.experiment(exp_id) if exp_id else None
    if experiment is None:
        raise UnknownRun(f"no stored run named {exp_id!r}")
    return experiment


def _run_samples(store, exp_id: str) -> list:
    return store.samples(exp_id)


def _one_sample(store, exp_id: str, sample_id: str):
    if hasattr(store, "sample"):
        return store.sample(exp_id, sample_id)
    return next((s for s in store.samples(exp_id) if s.sample_id == sample_id), None)


def run_rows(store, exp_id: str) -> list[dict]:
    """One light row per sample of the run, in stored order, with its scanners' findings."""
    experiment = experiment_of(store, exp_id)
    samples = _run_samples(store, exp_id)
    found = labelling.run_findings(store, experiment, samples)
    return [rows_.light_row(s, found.get(s.sample_id), n) for n, s in enumerate(samples)]


def listing(store, exp_id: str, *, verdict=rows_.ALL, group=rows_.ALL, error_type=rows_.ALL, finding=rows_.ALL,
            text: str = "", column: str = "position", descending: bool = False) -> tuple[list[dict], list[dict]]:
    """(every row of the run, the rows that pass the filters and the search, sorted)."""
    every = run_rows(store, exp_id)
    matched = store_search.search(store, exp_id, text)
    shown = rows_.filtered(every, verdict=verdict, group=group, error_type=error_type, finding=finding,
                           ids=None if matched is None else set(matched))
    return every, rows_.sorted_rows(shown, column, descending)


def search_ids(store, exp_id: str, text: str) -> list[str]:
    """The run's samples a full-text search finds, in stored order (every sample for an empty query)."""
    experiment_of(store, exp_id)
    found = store_search.search(store, exp_id, text)
    return [r["id"] for r in run_rows(store, exp_id)] if found is None else found


def _labelled(store, experiment: dict, sample) -> list[dict]:
    mine = labelling.run_findings(store, experiment, [sample])[sample.sample_id]
    try:
        labels = read_labels(labelling.folder_of(experiment))
    except InputError:
        labels = {}
    return [{**f, "label": (labels.get(finding_key(sample.sample_id, f)) or {}).get("label", ""),
             "reviewer": (labels.get(finding_key(sample.sample_id, f)) or {}).get("reviewer", "")} for f in mine]


def pane(store, exp_id: str | None, sample_id: str | None) -> tuple[str, list[tuple[str, int]]]:
    """The sample's transcript pane (escaped HTML) and the labelling control's choices (its findings)."""
    if not exp_id or not sample_id:
        return "", []
    experiment = experiment_of(store, exp_id)
    sample = _one_sample(store, exp_id, sample_id)
    if sample is None:
        return f'<p class="evalui-empty">No sample {html.escape(sample_id)} in {html.escape(exp_id)}.</p>', []
    found = _labelled(store, experiment, sample)
    return transcript_html(experiment["benchmark"], sample, exp_id, found), finding_choices(found)


def sample_of(store, exp_id: str, sample_id: str):
    return _one_sample(store, exp_id, sample_id)


def verdicts(store, exp_id: str) -> dict[str, str]:
    """sample id -> verdict word, in stored order."""
    return {r["id"]: r["verdict"] for r in run_rows(store, exp_id)}
