"""Concurrent, resumable execution of a task's samples, with progress events.

A task says how to build a request, how to call the model and how to judge the answer; the
runner owns concurrency, the rate limit, cancellation, the store and progress.

Worker threads (one per unit of the run's concurrency) build, call and judge; a task's ``call`` is
synchronous and may make several model calls, and the client's requests run on its own event
loop while the thread waits. Each call holds a slot of the endpoint's process-wide limiter
(evalui.engine.limiter), so runs against one endpoint share its concurrency and RPM. The store
commits the writes in groups on its own thread; a sample is reported finished only once its
verdict is committed, so a finished sample survives ``kill -9``.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Protocol

from evalui.engine.client import Cancelled, ChatReply, EndpointError
from evalui.engine.limiter import Lease, join_endpoint, private_limiter
from evalui.engine.store import HEARTBEAT_S, RunStore, Sample
from evalui.engine.trajectory import TaskResult, single_reply


class Task(Protocol):
    benchmark: str

    def build_request(self, sample: Sample) -> dict: ...

    def call(self, client, sample: Sample, request: dict) -> TaskResult | ChatReply: ...

    def judge(self, sample: Sample, response: dict) -> tuple[object, bool, dict]: ...


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

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0

    def as_dict(self) -> dict:
        return asdict(self)


class RateLimiter:
    """At most ``per_minute`` starts per minute, evenly spaced. (The runner now spaces calls with
    the endpoint's shared limiter; this stays for code that imports it.)"""

    def __init__(self, per_minute: float | None):
        self._interval = 60.0 / per_minute if per_minute else 0.0
        self._next = time.monotonic()
        self._lock = threading.Lock()

    def wait(self, cancel: threading.Event) -> None:
        if not self._interval:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self._interval
        cancel.wait(max(0.0, start - now))


class _Heartbeat:
    """Tells the store every few seconds that this process still executes the run."""

    def __init__(self, store: RunStore, exp_id: str):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, args=(store, exp_id), name=f"evalui-heartbeat-{exp_id}",
                                        daemon=True)
        self._thread.start()

    def _beat(self, store: RunStore, exp_id: str) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            try:
                store.heartbeat(exp_id)
            except Exception:  # a busy or closed store: the next beat tries again
                pass

    def stop(self) -> None:
        self._stop.set()


def redact(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text


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
) -> Progress:
    """Run every unfinished sample of ``exp_id``: judged samples are never sent again."""
    cancel = cancel or threading.Event()
    secrets = tuple(secrets)
    # What a success is called differs by task: a valid problem, a passing judgement, a win.
    words = getattr(task, "verdict_words", ("correct", "wrong"))
    lock = threading.Lock()
    counts = store.progress(exp_id)
    started = time.perf_counter()
    done_here = 0
    failures: list[BaseException] = []  # store writes that failed, and worker crashes

    def report(message: str) -> Progress:
        elapsed = time.perf_counter() - started
        remaining = counts["total"] - counts["judged"]
        eta = elapsed / done_here * remaining if done_here else None
        progress = Progress(exp_id, counts["total"], counts["judged"], counts["correct"], counts["errors"],
                            counts["tokens"], elapsed, eta, message)
        if on_progress:
            on_progress(progress)
        return progress

    # The callbacks below run on the store's writer thread, once the write is committed.
    def judged(sample_id: str, correct: bool, tokens: int, had_error: bool, error: BaseException | None) -> None:
        nonlocal done_here
        with lock:
            if error is not None:
                failures.append(error)
                report(f"{sample_id}: not stored: {error}")
                return
            done_here += 1
            counts["judged"] += 1
            counts["correct"] += correct
            counts["errors"] -= 1 if had_error else 0
            counts["tokens"] += tokens
            report(f"{sample_id}: {words[0] if correct else words[1]}")

    def errored(sample_id: str, message: str, had_error: bool, error: BaseException | None) -> None:
        with lock:
            if error is not None:
                failures.append(error)
            counts["errors"] += 0 if had_error or error is not None else 1
            report(f"{sample_id}: {message}")

    def judge(sample: Sample, response: dict, tokens: int, had_error: bool) -> None:
        prediction, correct, verdict = task.judge(sample, response)
        correct = bool(correct)
        store.record_judgement(exp_id, sample.sample_id, prediction=prediction, correct=correct, verdict=verdict,
                               wait=False, on_done=lambda error: judged(sample.sample_id, correct, tokens,
                                                                        had_error, error))

    def fail(sample: Sample, request, error: str, attempts: int, had_error: bool, steps=None) -> None:
        message = redact(error, secrets)
        trajectory = [s.as_dict() for s in steps] if steps else None
        store.record_error(exp_id, sample.sample_id, request=request, error=message, attempts=attempts,
                           trajectory=trajectory, wait=False,
                           on_done=lambda failure: errored(sample.sample_id, message, had_error, failure))

    def work(sample: Sample) -> None:
        had_error = sample.error is not None
        request = None
        try:
            if sample.stage == "rollout":  # answered before a crash: judge it, never ask again
                judge(sample, sample.response, 0, had_error)
                return
            request = task.build_request(sample)
            if not lease.acquire(cancel):
                return
            try:
                result = task.call(client, sample, request)
            except Cancelled:
                return  # not the sample's fault: it waits for a resume, as it was
            except EndpointError as exc:
                fail(sample, request, str(exc), exc.attempts, had_error, getattr(exc, "steps", None))
                return
            finally:
                lease.release()
            if isinstance(result, ChatReply):  # a task that makes one call may return its reply
                result = single_reply(result, (request or {}).get("messages"))
            # Not waited for: the answer is kept as soon as the group commits, and the verdict
            # (queued after it) is what marks the sample finished.
            store.record_rollout(exp_id, sample.sample_id, request=request, response=result.output,
                                 latency_s=result.wall_s, prompt_tokens=result.prompt_tokens,
                                 completion_tokens=result.completion_tokens, attempts=result.attempts,
                                 trajectory=result.trajectory(), wait=False)
            judge(sample, result.output, result.total_tokens, had_error)
        except Exception as exc:  # one sample's bad data or a task bug must not stop the run
            fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)

    pending = store.samples(exp_id, stages=("init", "rollout"))
    queue = iter(pending)
    taking = threading.Lock()

    def worker() -> None:
        try:
            while not cancel.is_set():
                with taking:
                    sample = next(queue, None)
                if sample is None:
                    return
                work(sample)
        except BaseException as exc:  # e.g. the store closed under the run: stop, and say so
            failures.append(exc)
            cancel.set()

    store.claim_run(exp_id)
    if hasattr(client, "cancel_on"):
        client.cancel_on(cancel)  # requests in flight and retry waits end soon after a cancel
    lease = endpoint_lease(client, concurrency, requests_per_minute)
    heartbeat = _Heartbeat(store, exp_id)
    report(f"{len(pending)} of {counts['total']} samples to run")
    threads = [threading.Thread(target=worker, name=f"evalui-run-{exp_id}-{i}", daemon=True)
               for i in range(max(1, min(concurrency, len(pending))))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.5)
    except BaseException:
        # Ctrl-C (or SIGTERM, raised as KeyboardInterrupt by the CLI) lands here, in the main thread.
        # Set first: queued samples are then never started, and requests in flight end within a
        # fraction of a second. Answered samples are kept.
        cancel.set()
        for thread in threads:
            thread.join()
        _stop(store, heartbeat, lease)
        interrupted = isinstance(sys.exc_info()[1], KeyboardInterrupt)
        store.set_status(exp_id, "cancelled" if interrupted else "failed")
        raise
    _stop(store, heartbeat, lease)
    if failures:
        store.set_status(exp_id, "failed")
        raise failures[0]
    counts = store.progress(exp_id)
    if cancel.is_set() and counts["judged"] < counts["total"]:
        status = "cancelled"
    elif counts["judged"] < counts["total"]:
        status = "incomplete"  # some samples failed for good; a resume retries them
    else:
        status = "finished"
    store.set_status(exp_id, status)
    return report(status)


def _stop(store: RunStore, heartbeat: _Heartbeat, lease: Lease) -> None:
    heartbeat.stop()
    lease.close()
    try:
        store.flush()  # every answer and verdict committed before the run's status is written
    except Exception:  # failures were already counted by the callbacks
        pass
