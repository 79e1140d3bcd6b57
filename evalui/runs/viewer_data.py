"""What the viewer reads from the store: a run's light rows (filtered, searched, sorted), one sample's
transcript pane with its findings and their labels, and two runs' verdicts for the A/B view.

The store reads are ``_light_rows`` (small columns only, never the messages) and ``_one_sample`` (one
row by its key); a transcript reads one sample."""

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


def _light_rows(store, exp_id: str) -> list:
    """The run's light rows (no messages, no JSON), from the store's light read when it has one."""
    if hasattr(store, "sample_rows"):
        return store.sample_rows(exp_id)
    return store.samples(exp_id)


def _one_sample(store, exp_id: str, sample_id: str):
    if hasattr(store, "sample"):
        return store.sample(exp_id, sample_id)
    return next((s for s in store.samples(exp_id) if s.sample_id == sample_id), None)


def _as_row(row, found: dict) -> dict:
    if not hasattr(row, "scanners"):  # a full sample (a store without light reads)
        return rows_.light_row(row, found.get(row.sample_id), row.position)
    scanners, invalid = row.scanners, row.invalid
    if row.sample_id in found:
        scanners = sorted({str(f.get("scanner")) for f in found[row.sample_id]})
        invalid = any(f.get("severity") == "invalid" for f in found[row.sample_id])
    return {"id": row.sample_id, "group": row.group or "", "verdict": row.verdict, "error_type": row.error_type,
            "latency_s": row.latency_s, "tokens": int(row.tokens or 0), "scanners": scanners, "invalid": invalid,
            "position": row.position}


def run_rows(store, exp_id: str) -> list[dict]:
    """One light row per sample of the run, in stored order, with its scanners' findings."""
    experiment = experiment_of(store, exp_id)
    light = _light_rows(store, exp_id)
    if light and not hasattr(light[0], "scanners"):
        return [_as_row(s, labelling.run_findings(store, experiment, light)) for s in light]
    # A sample that never got a verdict (an endpoint error) keeps no findings: it is scanned here, as
    # the run's export does, and only those samples are read in full.
    unscanned = [r.sample_id for r in light if r.findings is None and r.verdict == "error"]
    found = labelling.run_findings(store, experiment, list(store.samples_by_id(exp_id, unscanned).values())) \
        if unscanned else {}
    return [_as_row(r, found) for r in light]


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
