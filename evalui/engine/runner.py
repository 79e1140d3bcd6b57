"""Concurrent, resumable execution of a task's samples, with progress events.

A task says how to build a request, how to call the model and how to judge the answer; the
runner owns concurrency, the rate limit, cancellation, the store and progress.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Protocol

from evalui.engine.client import Cancelled, ChatReply, EndpointError
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
    """At most ``per_minute`` starts per minute, evenly spaced; shared by all workers."""

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
    limiter = RateLimiter(requests_per_minute)
    # What a success is called differs by task: a valid problem, a passing judgement, a win.
    words = getattr(task, "verdict_words", ("correct", "wrong"))
    lock = threading.Lock()
    counts = store.progress(exp_id)
    started = time.perf_counter()
    done_here = 0

    def report(message: str) -> Progress:
        nonlocal done_here
        elapsed = time.perf_counter() - started
        remaining = counts["total"] - counts["judged"]
        eta = elapsed / done_here * remaining if done_here else None
        progress = Progress(exp_id, counts["total"], counts["judged"], counts["correct"], counts["errors"],
                            counts["tokens"], elapsed, eta, message)
        if on_progress:
            on_progress(progress)
        return progress

    def judge(sample: Sample, response: dict) -> bool:
        prediction, correct, verdict = task.judge(sample, response)
        store.record_judgement(exp_id, sample.sample_id, prediction=prediction, correct=correct, verdict=verdict)
        return bool(correct)

    def fail(sample: Sample, request, error: str, attempts: int, had_error: bool, steps=None) -> None:
        message = redact(error, secrets)
        trajectory = [s.as_dict() for s in steps] if steps else None
        store.record_error(exp_id, sample.sample_id, request=request, error=message, attempts=attempts,
                           trajectory=trajectory)
        with lock:
            counts["errors"] += 0 if had_error else 1
            report(f"{sample.sample_id}: {message}")

    def work(sample: Sample) -> None:
        nonlocal done_here
        if cancel.is_set():
            return
        had_error = sample.error is not None
        request = None
        try:
            if sample.stage == "rollout":  # answered before a crash: judge it, never ask again
                correct = judge(sample, sample.response)
                tokens = 0
            else:
                limiter.wait(cancel)
                if cancel.is_set():
                    return
                request = task.build_request(sample)
                try:
                    result = task.call(client, sample, request)
                except Cancelled:
                    return  # not the sample's fault: it waits for a resume, as it was
                except EndpointError as exc:
                    fail(sample, request, str(exc), exc.attempts, had_error, getattr(exc, "steps", None))
                    return
                if isinstance(result, ChatReply):  # a task that makes one call may return its reply
                    result = single_reply(result, (request or {}).get("messages"))
                store.record_rollout(exp_id, sample.sample_id, request=request, response=result.output,
                                     latency_s=result.wall_s, prompt_tokens=result.prompt_tokens,
                                     completion_tokens=result.completion_tokens, attempts=result.attempts,
                                     trajectory=result.trajectory())
                correct = judge(sample, result.output)
                tokens = result.total_tokens
        except Exception as exc:  # one sample's bad data or a task bug must not stop the run
            fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)
            return
        with lock:
            done_here += 1
            counts["judged"] += 1
            counts["correct"] += correct
            counts["errors"] -= 1 if had_error else 0
            counts["tokens"] += tokens
            report(f"{sample.sample_id}: {words[0] if correct else words[1]}")

    pending = store.samples(exp_id, stages=("init", "rollout"))
    store.claim_run(exp_id)
    if hasattr(client, "cancel_on"):
        client.cancel_on(cancel)  # requests in flight and retry waits end soon after a cancel
    heartbeat = _Heartbeat(store, exp_id)
    report(f"{len(pending)} of {counts['total']} samples to run")
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="evalui-run")
    try:
        futures = [pool.submit(work, s) for s in pending]
        for future in futures:
            future.result()
    except KeyboardInterrupt:
        # Set before the pool is shut down: queued samples then return at once, and requests in
        # flight end within a fraction of a second. Answered samples are kept.
        cancel.set()
        pool.shutdown(wait=True, cancel_futures=True)
        heartbeat.stop()
        store.set_status(exp_id, "cancelled")
        raise
    except BaseException:
        cancel.set()
        pool.shutdown(wait=True, cancel_futures=True)
        heartbeat.stop()
        store.set_status(exp_id, "failed")
        raise
    pool.shutdown(wait=True)
    heartbeat.stop()
    counts = store.progress(exp_id)
    if cancel.is_set() and counts["judged"] < counts["total"]:
        status = "cancelled"
    elif counts["judged"] < counts["total"]:
        status = "incomplete"  # some samples failed for good; a resume retries them
    else:
        status = "finished"
    store.set_status(exp_id, status)
    return report(status)
