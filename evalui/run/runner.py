"""Concurrent, resumable execution of a task's samples, with progress events.

A task says how to build a request, how to call the model and how to judge the answer (its shape:
evalui.run.task); the runner owns concurrency, the rate limit, cancellation, the store and progress.

Worker threads (one per unit of the run's concurrency) build, call and judge; a task's ``call`` is
synchronous and may make several model calls, and the client's requests run on its own event
loop while the thread waits. A task that also has ``acall`` runs on that loop instead. Each call holds a slot of the endpoint's process-wide limiter
(evalui.endpoint.limiter), so runs against one endpoint share its concurrency and RPM. The store
commits the writes in groups on its own thread; a sample is reported finished only once its
verdict is committed, so a finished sample survives ``kill -9``.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from evalui.endpoint.in_flight import Board, LiveRun, RequestInFlight
from evalui.endpoint.limiter import Lease, join_endpoint, private_limiter
from evalui.run import heap
from evalui.run.claims import Claims, RunWorker
from evalui.run.drivers import run_on_loop, run_on_threads
from evalui.run.live import LIVE_RUNS, LiveState
from evalui.run.phases import RunPhases
from evalui.run.pricing import BudgetGate, CostMeter, MeteredTask
from evalui.run.sample_run import SampleRun, counts_of, redact  # noqa: F401  (redact: re-exported)
from evalui.run.task import Task, has_acall, has_prepare
from evalui.store.run_store import RunStore

REQUESTS_MAX_AGE_S = 0.25  # how stale the requests in flight on a Progress may be

# The final message of a worker that stopped while other workers still run its exp_id.
SHARED = "running elsewhere"


@dataclass(frozen=True)
class Progress:
    exp_id: str
    total: int
    done: int
    correct: int
    errors: int
    tokens: int
    elapsed_s: float
    eta_s: float | None
    message: str = ""
    cost_usd: float | None = None  # spent so far, with a price known (earlier sessions included)
    cost_estimate_usd: float | None = None  # the whole run's, once a few samples were answered
    requests: tuple[RequestInFlight, ...] = ()  # the calls in flight: sample, seconds, try; longest first
    paused: str = ""  # "paused: the endpoint at HOST does not answer …" while the run waits for it

    @property
    def in_flight(self) -> int:
        return len(self.requests)

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0

    def as_dict(self) -> dict:
        return asdict(self)


def endpoint_lease(client, concurrency: int, requests_per_minute: float | None) -> Lease:
    """The run's lease on its endpoint's shared limiter; a client without settings shares with nobody."""
    settings = getattr(client, "settings", None)
    base_url, model = getattr(settings, "base_url", None), getattr(settings, "model", None)
    if isinstance(base_url, str) and base_url and isinstance(model, str):
        return join_endpoint(base_url, model, concurrency, requests_per_minute)
    return private_limiter().join(concurrency, requests_per_minute)


def run_experiment(
    store: RunStore,
    exp_id: str,
    task: Task,
    client,
    *,
    concurrency: int = 8,
    requests_per_minute: float | None = None,
    cancel: threading.Event | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    secrets: Iterable[str] = (),
    meter: CostMeter | None = None,
    phases: RunPhases | None = None,
) -> Progress:
    """Run every unfinished sample of ``exp_id``: judged samples are never sent again.

    ``meter`` (evalui.run.pricing) counts what the calls cost; with a budget, no sample is
    started once it is spent, the samples in flight finish, and the status is ``budget_spent``.
    ``phases`` (evalui.run.phases) is marked when the samples may start, at the first request
    and once the last verdict is committed."""
    phases = phases or RunPhases()
    cancel = cancel or threading.Event()
    counts = counts_of(store.progress(exp_id))
    started = time.perf_counter()
    live = LiveRun(exp_id, Board(), getattr(client, "circuit", None))

    def progress(message: str, done_here: int) -> Progress:
        elapsed = time.perf_counter() - started
        remaining = counts["total"] - counts["judged"]
        eta = elapsed / done_here * remaining if done_here else None
        event = Progress(exp_id, counts["total"], counts["judged"], counts["correct"], counts["errors"],
                         counts["tokens"], elapsed, eta, message, meter.spent_usd if meter else None,
                         meter.estimate_usd() if meter else None, live.requests(REQUESTS_MAX_AGE_S), live.paused())
        if on_progress:
            on_progress(event)
        return event

    pending = store.samples(exp_id, stages=("init", "rollout"))
    # Samples are claimed a batch at a time as workers need them: other processes (or dashboard
    # replicas) running the same exp_id take the rest, and none is asked twice (evalui.run.claims).
    # Four slots' worth a claim: a claim waits for the writer's group commit in progress, and with
    # one slot's worth the loop ran out of samples meanwhile against a fast endpoint.
    worker = RunWorker(store, exp_id, cancel, batch=4 * concurrency, known=pending)
    samples: Claims = BudgetGate(worker, meter) if meter and meter.max_cost_usd is not None else worker
    if meter:
        task = MeteredTask(task, meter)
    if hasattr(client, "cancel_on"):
        client.cancel_on(cancel)  # requests in flight and retry waits end soon after a cancel
    lease = endpoint_lease(client, concurrency, requests_per_minute)
    run = SampleRun(store, exp_id, task, client, lease, cancel, counts, progress, tuple(secrets), live, phases)
    # The pages read the requests in flight, a pause and the cost so far from here while it runs.
    with LIVE_RUNS.running(LiveState(exp_id, live, meter)):
        progress(f"{len(pending)} of {counts['total']} samples to run", 0)
        workers = max(1, min(concurrency, len(pending)))
        if has_prepare(task):
            try:
                task.prepare(pending)
            except Exception:  # only a head start: each sample's own build reports its bad data
                pass
        run.build_ahead(pending)
        on_loop = has_acall(task) and callable(getattr(client, "submit", None))
        if on_loop:
            run.start_judges()  # forked now, with the task's data loaded (evalui.run.judge_pool)
        phases.watch_loop(getattr(client, "loop_thread", None) if on_loop else None)
        heap.settle_before_run_phase()
        phases.mark_ready(_commit_seconds(store))
        try:
            if on_loop:
                run_on_loop(run, samples, workers)
            else:
                run_on_threads(run, samples, workers)
        except BaseException:
            # Ctrl-C (or SIGTERM, raised as KeyboardInterrupt by the CLI) lands here, in the main
            # thread, once every worker has stopped: the answered samples are kept.
            if not _stop(store, worker, lease):
                store.set_status(exp_id, "cancelled" if isinstance(sys.exc_info()[1], KeyboardInterrupt) else "failed")
            raise
        finally:
            run.close_judges()  # before the run phase's CPU is read: the child's counts once waited for
    run.tick()  # a resume in the run's last half second is said too
    others = _stop(store, worker, lease)
    phases.mark_run_end(_commit_seconds(store))
    if on_loop:
        phases.claim_wait_s = worker.wait_s
    if run.failures:
        if not others:
            store.set_status(exp_id, "failed")
        raise run.failures[0]
    counts.update(counts_of(store.progress(exp_id)))
    if counts["judged"] < counts["total"] and others:
        return progress(SHARED, run.done_here)  # the run goes on in other workers; the last one ends it
    if cancel.is_set() and counts["judged"] < counts["total"]:
        status = "cancelled"
    elif meter and meter.spent_out and counts["judged"] < counts["total"]:
        store.set_status(exp_id, "budget_spent")  # a resume with a higher budget goes on
        return progress(meter.stop_message(), run.done_here)
    elif counts["judged"] < counts["total"]:
        status = "incomplete"  # some samples failed for good; a resume retries them
    else:
        status = "finished"
    store.set_status(exp_id, status)
    return progress(status, run.done_here)


def _commit_seconds(store: object) -> float:
    commit_seconds = getattr(store, "commit_seconds", None)  # a stand-in store in tests may not count
    return commit_seconds() if callable(commit_seconds) else 0.0


def _stop(store: RunStore, worker: RunWorker, lease: Lease) -> int:
    """End this worker's part; returns how many other workers still run the same exp_id."""
    lease.close()
    try:
        store.flush()  # every answer and verdict committed before the run's status is written
    except Exception:  # failures were already counted by the callbacks
        pass
    try:
        return worker.leave()
    except Exception:  # a store that failed under the run: its leases simply run out
        return 0
