"""What the viewer reads from the store: a run's light rows, the list filtered, searched, sorted and paged
in SQL (evalui.store.light), one sample's transcript pane with its findings and their labels, and two
runs' verdicts for the A/B view.

Reads only: the full-text index is written with the samples (evalui.store.search) and every finding is
stored when the run's summary scans it (evalui.run.findings), so nothing here scans, indexes or writes.

A run's light rows (``run_rows``, what the filters' choices and the A/B view read) are kept, per store,
for the runs viewed last, until the store says the run changed (``run_version``): API pollers of a
running run would otherwise read all of them on every call (bench/dashboard_load.py)."""

from __future__ import annotations

import html
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field

from evalui.errors import InputError
from evalui.scanners.labels import finding_key, read_labels
from evalui.store import search as store_search
from evalui.store.light import SampleRow
from evalui.viewer import findings as labelling
from evalui.viewer import rows as rows_
from evalui.viewer.inspector_data import finding_choices
from evalui.viewer.texts import Words, english
from evalui.viewer.transcript import transcript_html


class UnknownRun(InputError):
    """An exp_id the store does not hold (an API caller may send any)."""


def experiment_of(store, exp_id: str | None) -> dict:
    experiment = store.experiment(exp_id) if exp_id else None
    if experiment is None:
        raise UnknownRun(f"no stored run named {exp_id!r}")
    return experiment


def _as_row(row: SampleRow) -> dict:
    return {"id": row.sample_id, "group": row.group or "", "verdict": row.verdict, "error_type": row.error_type,
            "latency_s": row.latency_s, "tokens": int(row.tokens or 0), "scanners": row.scanners,
            "invalid": row.invalid, "position": row.position}


# How many runs' rows a store keeps: the ones being viewed now (a 3,641-sample run's are ~4 MB).
KEPT_RUNS = 4


@dataclass
class _KeptRuns:
    runs: OrderedDict = field(default_factory=OrderedDict)  # exp_id -> (run_version, rows), the last used last
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, exp_id: str, version) -> list[dict] | None:
        with self.lock:
            kept = self.runs.get(exp_id)
            if kept is None or kept[0] != version:
                return None
            self.runs.move_to_end(exp_id)
            return kept[1]

    def put(self, exp_id: str, version, rows: list[dict]) -> None:
        with self.lock:
            self.runs[exp_id] = (version, rows)
            self.runs.move_to_end(exp_id)
            while len(self.runs) > KEPT_RUNS:
                self.runs.popitem(last=False)


_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # store -> _KeptRuns
_KEPT_LOCK = threading.Lock()


def _kept_runs(store) -> _KeptRuns:
    with _KEPT_LOCK:
        kept = _KEPT.get(store)
        if kept is None:
            kept = _KEPT[store] = _KeptRuns()
        return kept


def run_rows(store, exp_id: str) -> list[dict]:
    """One light row per sample of the run, in stored order, with its stored findings. The list is the
    caller's; its rows are shared with other callers and must not be changed."""
    experiment_of(store, exp_id)
    runs = _kept_runs(store)
    version = store.run_version(exp_id)  # before the rows: rows kept under it are at least as new
    rows = runs.get(exp_id, version)
    if rows is None:
        rows = [_as_row(r) for r in store.sample_rows(exp_id)]
        runs.put(exp_id, version, rows)
    return list(rows)


def _chosen(value) -> str | None:
    """A filter's value for the store: None for no filter (ALL, or nothing chosen)."""
    return None if value in (rows_.ALL, "", None) else str(value)


@dataclass
class Page:
    """One page of the viewer's list: its rows, how many samples pass in all, the page's number, and
    where the selected sample is among them (from 0; None: not among them)."""

    rows: list[dict]
    total: int
    page: int
    selected: int | None


def page(store, exp_id: str, *, verdict=rows_.ALL, group=rows_.ALL, error_type=rows_.ALL, finding=rows_.ALL,
         text: str = "", column: str = "position", descending: bool = False, number: int | None = 0,
         selected: str | None = None, size: int = rows_.PAGE_SIZE) -> Page:
    """Page ``number`` (from 0, clamped to the last) of the run's samples that pass the filters and the
    search, sorted by ``column``; ``number=None``: the page holding ``selected``. One page is read."""
    experiment_of(store, exp_id)
    filters = {"verdict": _chosen(verdict), "group": _chosen(group), "error_type": _chosen(error_type),
               "finding": _chosen(finding), "text": text or "", "column": column, "descending": bool(descending)}
    offset = None if number is None else max(0, int(number)) * size
    found = store.sample_view(exp_id, **filters, offset=offset, limit=size, selected=selected, page_size=size)
    last = rows_.page_count(found.total, size) - 1
    if found.offset // size > last:  # past the end (a filter left fewer pages): the last one
        found = store.sample_view(exp_id, **filters, offset=last * size, limit=size, selected=selected)
    return Page([_as_row(r) for r in found.rows], found.total, found.offset // size, found.selected)


def listing(store, exp_id: str, *, verdict=rows_.ALL, group=rows_.ALL, error_type=rows_.ALL, finding=rows_.ALL,
            text: str = "", column: str = "position", descending: bool = False) -> tuple[list[dict], list[dict]]:
    """(every row of the run, the rows that pass the filters and the search, sorted), the second
    filtered, searched and sorted in SQL. ``page`` reads one page of them."""
    every = run_rows(store, exp_id)
    if all(_chosen(value) is None for value in (verdict, group, error_type, finding)) and not (text or "").strip() \
            and column not in rows_.COLUMNS:
        return every, every[::-1] if descending else list(every)  # the run in stored order: its rows as they are
    found = store.sample_view(exp_id, verdict=_chosen(verdict), group=_chosen(group), error_type=_chosen(error_type),
                              finding=_chosen(finding), text=text or "", column=column, descending=bool(descending))
    return every, [_as_row(r) for r in found.rows]


def choices(store, exp_id: str) -> dict[str, list[str]]:
    """What each filter offers for this run (the values that occur), "all" first, counted in SQL:
    the same lists as ``rows.filter_choices(run_rows(...))``, without reading every row."""
    experiment_of(store, exp_id)
    facets = store.sample_facets(exp_id)
    return {key: [rows_.ALL, *facets[key]] for key in ("verdict", "group", "error_type", "finding")}


def search_ids(store, exp_id: str, text: str) -> list[str]:
    """The run's samples a full-text search finds, in stored order (every sample for an empty query)."""
    experiment_of(store, exp_id)
    found = store_search.search(store, exp_id, text)
    return [r["id"] for r in run_rows(store, exp_id)] if found is None else found


def _labelled(experiment: dict, sample) -> list[dict]:
    mine = labelling.stored_findings(sample)
    try:
        labels = read_labels(labelling.folder_of(experiment))
    except InputError:
        labels = {}
    return [{**f, "label": (labels.get(finding_key(sample.sample_id, f)) or {}).get("label", ""),
             "reviewer": (labels.get(finding_key(sample.sample_id, f)) or {}).get("reviewer", "")} for f in mine]


def pane(store, exp_id: str | None, sample_id: str | None, words: Words = english) -> tuple[str, list[tuple[str, int]]]:
    """The sample's transcript pane (escaped HTML, in ``words``: evalui.viewer.texts) and the labelling
    control's choices (its findings)."""
    if not exp_id or not sample_id:
        return "", []
    experiment = experiment_of(store, exp_id)
    sample = store.sample(exp_id, sample_id)
    if sample is None:
        return f'<p class="evalui-empty">No sample {html.escape(sample_id)} in {html.escape(exp_id)}.</p>', []
    found = _labelled(experiment, sample)
    return transcript_html(experiment["benchmark"], sample, exp_id, found, words), finding_choices(found)


def sample_of(store, exp_id: str, sample_id: str):
    return store.sample(exp_id, sample_id)


def verdicts(store, exp_id: str) -> dict[str, str]:
    """sample id -> verdict word, in stored order."""
    return {r["id"]: r["verdict"] for r in run_rows(store, exp_id)}
