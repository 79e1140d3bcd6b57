"""What the viewer reads from the store: a run's light rows (filtered, searched, sorted), one sample's
transcript pane with its findings and their labels, and two runs' verdicts for the A/B view.

The store reads are ``_light_rows`` (small columns only, never the messages) and ``_one_sample`` (one
row by its key); a transcript reads one sample. A run's rows are kept (per store, for the runs viewed
last) until the store says the run changed (``run_version``): every page, filter and sort of the
viewer, and every API poller's call, would otherwise read and rebuild all of them, each time (20
pollers of /viewer_samples made a run started beside them 3x slower: bench/dashboard_load.py)."""

from __future__ import annotations

import html
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field

from evalui.errors import InputError
from evalui.scanners.labels import finding_key, read_labels
from evalui.store import search as store_search
from evalui.viewer import findings as labelling
from evalui.viewer import rows as rows_
from evalui.viewer.inspector_data import finding_choices
from evalui.viewer.transcript import transcript_html


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


# How many runs' rows a store keeps: the ones being viewed now (a 3,641-sample run's are ~4 MB).
KEPT_RUNS = 4
# While other runs of the benchmark judge samples, the findings of a kept run's never-judged samples
# (which follow what other models solved) are scanned again at most this often, not on every read.
CONTEXT_LAG_S = 2.0


@dataclass
class _Kept:
    version: tuple  # the store's run_version the rows were read at
    light: list  # the store's light rows
    unscanned: list  # the never-judged samples, in full: their findings are scanned on reading
    context: tuple | None = None  # the benchmark_version they were scanned at (other runs' outcomes)
    scanned_at: float = 0.0  # time.monotonic() of that scan
    rows: list[dict] | None = None


@dataclass
class _KeptRuns:
    runs: OrderedDict = field(default_factory=OrderedDict)  # exp_id -> _Kept, the last used last
    building: dict = field(default_factory=dict)  # exp_id -> a lock: one reader builds, the others wait for it
    lock: threading.Lock = field(default_factory=threading.Lock)

    def builder(self, exp_id: str) -> threading.Lock:
        with self.lock:
            return self.building.setdefault(exp_id, threading.Lock())

    def get(self, exp_id: str) -> _Kept | None:
        with self.lock:
            return self.runs.get(exp_id)

    def put(self, exp_id: str, kept: _Kept) -> None:
        with self.lock:
            self.runs[exp_id] = kept
            self.runs.move_to_end(exp_id)
            while len(self.runs) > KEPT_RUNS:
                gone, _ = self.runs.popitem(last=False)
                self.building.pop(gone, None)


_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # store -> _KeptRuns
_KEPT_LOCK = threading.Lock()


def _kept_runs(store) -> _KeptRuns:
    with _KEPT_LOCK:
        kept = _KEPT.get(store)
        if kept is None:
            kept = _KEPT[store] = _KeptRuns()
        return kept


def _fresh(kept: _Kept | None, version: tuple | None, store, experiment: dict) -> bool:
    if kept is None or kept.rows is None or kept.version != version:
        return False
    if not kept.unscanned or time.monotonic() - kept.scanned_at < CONTEXT_LAG_S:
        return True
    return kept.context == _context(store, experiment)


def run_rows(store, exp_id: str) -> list[dict]:
    """One light row per sample of the run, in stored order, with its scanners' findings. The list is
    the caller's; its rows are shared with other callers and must not be changed."""
    experiment = experiment_of(store, exp_id)
    if not hasattr(store, "run_version"):
        return _built_rows(store, experiment, exp_id)
    runs = _kept_runs(store)
    version = store.run_version(exp_id)  # before the rows: rows kept under it are at least as new
    kept = runs.get(exp_id)
    if not _fresh(kept, version, store, experiment):
        with runs.builder(exp_id):
            kept = runs.get(exp_id)
            if not _fresh(kept, version, store, experiment):  # else built meanwhile by the reader that held the lock
                kept = _built(store, experiment, exp_id, version, kept)
    runs.put(exp_id, kept)  # the last used is the last to go
    return list(kept.rows)


def _built(store, experiment: dict, exp_id: str, version, kept: _Kept | None) -> _Kept:
    if kept is None or kept.version != version:
        light = store.sample_rows(exp_id)
        # A sample that never got a verdict (an endpoint error) keeps no findings: it is scanned here, as
        # the run's export does, and only those samples are read in full.
        unscanned = [r.sample_id for r in light if r.findings is None and r.verdict == "error"]
        kept = _Kept(version, light, list(store.samples_by_id(exp_id, unscanned).values()) if unscanned else [])
    context = _context(store, experiment) if kept.unscanned else None
    found = labelling.run_findings(store, experiment, kept.unscanned) if kept.unscanned else {}
    return _Kept(kept.version, kept.light, kept.unscanned, context, time.monotonic(),
                 [_as_row(r, found) for r in kept.light])


def _context(store, experiment: dict) -> tuple:
    """What the findings of the run's never-judged samples depend on besides themselves: the other runs."""
    return store.benchmark_version(experiment["benchmark"])


def _built_rows(store, experiment: dict, exp_id: str) -> list[dict]:
    """run_rows for a store without run_version, read afresh."""
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
