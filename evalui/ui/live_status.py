"""What a page shows of a run while it goes, beyond the store's counts: a pause of its endpoint,
the requests in flight (sample, seconds, try), the last error in plain words, and the accuracy so far."""

from __future__ import annotations

import time

from evalui.reports.markdown import inert
from evalui.run.background import background_runs
from evalui.run.experiment import summary_of
from evalui.run.live import live_requests
from evalui.store.run_store import RunStore
from evalui.ui.run_view import is_running, status_line
from evalui.ui.web.access import say

SHOWN_REQUESTS = 3  # requests in flight named in the status; the rest are counted


def live_status(store: RunStore, run_id: str | None) -> str:
    """The status line, and while the run goes here: a pause, the requests in flight, the last error."""
    line = status_line(store, run_id)
    live = live_requests(run_id) if is_running(run_id) else None
    if live is None:
        return line
    notes = []
    state = live.circuit.state() if live.circuit is not None else None
    if state is not None and state.open:
        since = time.strftime("%H:%M:%S", time.localtime(state.since)) if state.since else "?"
        notes.append(say("msg.paused", host=inert(state.host), since=since, every=f"{state.probe_every_s:g}"))
    requests = live.requests()
    if requests:
        notes.append(say("msg.in_flight", count=len(requests),
                         names=", ".join(_request_words(r) for r in requests[:SHOWN_REQUESTS])
                         + (", …" if len(requests) > SHOWN_REQUESTS else "")))
    if live.last_error:
        notes.append(say("msg.last_error", error=inert(live.last_error)))
    return line + "".join(f"\n\n{note}" for note in notes)


def resumed_at(run_id: str | None) -> str:
    """When the run's endpoint answered again after the run's last pause (the log's "HH:MM:SS"), or ""
    while it is paused or never was. The run's log is where the engine says it (sample_run's
    "paused: …" and "resumed: …" lines)."""
    run = background_runs().get(run_id) if run_id else None
    for line in reversed(list(run.log) if run else []):  # a copy: the run appends while this reads
        if "resumed: the endpoint at" in line:
            return line.split(" ", 1)[0]
        if "paused: the endpoint at" in line:
            return ""
    return ""


def accuracy_so_far(store: RunStore, exp_id: str, title: str):
    """A running run's accuracy per group from the verdicts stored so far (no scanners, no exports:
    a tab's results view rebuilds it every LIVE_RESULTS_S); None before the first verdict."""
    from evalui.core import registry
    from evalui.reports.charts import accuracy_bars

    experiment = store.experiment(exp_id)
    spec = registry.find(experiment["benchmark"]) if experiment else None
    summary = summary_of(exp_id, store.samples(exp_id), spec.cluster_of if spec else None)
    return accuracy_bars(summary["by_group"], title) if summary["judged"] else None


def _request_words(request) -> str:
    fields = {"sample": inert(request.sample_id, 80), "seconds": f"{request.elapsed_s:.0f}"}
    if request.waiting:
        return say("msg.request_waiting", **fields)
    if request.attempt > 1:
        return say("msg.request_retry", attempt=request.attempt, tries=request.max_attempts, **fields)
    return say("msg.request", **fields)
