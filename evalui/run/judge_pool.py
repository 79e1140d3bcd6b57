"""Judges off the event loop: jobs run in one forked process, in batches.

Against a fast endpoint the run's event loop is what caps the requests in flight, and packing and
judging an answer with the official function-calling checker took about a third of that loop's
time per sample (bench/RESULTS.md, "judge off the loop"). A task that can state its judge as a
module-level function and picklable arguments (``judge_job``, evalui.run.task) may have the answer
packed and judged in one child process (evalui.run.answer_job); the pool itself runs any such job.
When a run uses it is EVALUI_JUDGE_PROCESS's (evalui.run.sample_run.SampleRun.start_judges): on
two CPUs shared with the endpoint it did not pay, so ``auto`` wants four.

- The child is forked when the run starts, after the task has loaded its data, so it begins with
  the checker and the data in memory and is ready at once (a fresh interpreter would need seconds).
- Jobs go in batches (every ``FLUSH_S``, or ``MAX_BATCH`` jobs), so the hand-over costs the loop a
  few microseconds a sample. ``concurrent.futures.ProcessPoolExecutor`` does the transport: its
  feeder and result threads pickle off the loop.
- A batch the child cannot take (it died, a job would not pickle) is judged on the loop instead:
  a verdict is never lost, only slower. A judge that raises fails its own sample, with the same
  message as on the loop.
- The child ignores Ctrl-C (the run's cancel goes through the parent) and writes nothing to the
  terminal.

Verdicts are the same as on the loop: the same function runs on the same arguments.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeAlias

# A judge the run can send elsewhere: a module-level function and its (picklable) arguments.
JudgeJob: TypeAlias = tuple[Callable[..., Any], tuple]
# What a job gives back: (True, the judge's return value, seconds) or (False, "Type: message", seconds).
Outcome: TypeAlias = tuple[bool, Any, float]
Deliver: TypeAlias = Callable[[Outcome], None]

FLUSH_S = 0.004  # a batch leaves at most this long after its first job: verdicts are late by no more
MAX_BATCH = 64
START_TIMEOUT_S = 10.0
BATCH_DEADLINE_S = 60.0  # a batch past this is a stuck child, not a slow one
CLOSE_TIMEOUT_S = 5.0


def _quiet_child() -> None:
    """In the child: Ctrl-C is the parent's to handle; standard streams are fresh objects, since a
    lock another thread of the parent held at the fork would stay taken here for good.

    Everything inherited is frozen out of the cyclic collector: an inherited object must never be
    finalised here. A SQLite connection of the parent's closed in the child would believe itself the
    database's last one (POSIX locks do not cross a fork), checkpoint and delete the write-ahead log
    under the parent. The child only ever reads what jobs send it, and ends with ``os._exit``."""
    gc.freeze()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (the process's own, for its whole life)
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115


def cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _ready() -> int:
    return os.getpid()


def judge_batch(jobs: list[JudgeJob]) -> list[Outcome]:
    return [_outcome(job) for job in jobs]


def _outcome(job: JudgeJob) -> Outcome:
    function, args = job
    began = time.perf_counter()
    try:
        return True, function(*args), time.perf_counter() - began
    except Exception as exc:  # the sample's own failure, reported with it
        return False, f"{type(exc).__name__}: {exc}", time.perf_counter() - began


class JudgePool:
    """One child process that judges the jobs the run's event loop hands it, a batch at a time.
    ``submit`` and ``drain`` are called on that loop; ``start`` and ``close`` by the run."""

    def __init__(self, executor: ProcessPoolExecutor):
        self._executor = executor
        self._waiting: list[tuple[JudgeJob, Deliver]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._batches: set[asyncio.Future[Any]] = set()
        self.broken = False  # the child could not take a batch: the rest is judged on the loop
        self.pid: int | None = None  # the child's
        self.failures: list[BaseException] = []  # a delivery that raised (the store's error): the run's

    @classmethod
    def start(cls) -> JudgePool | None:
        """Fork the child now; None off Linux (Windows has no fork, and macOS's system libraries do
        not survive a fork of a threaded process), with one CPU only (the child would take the
        loop's), or when the child does not start."""
        if not sys.platform.startswith("linux") or cpus() < 2:
            return None
        executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"), initializer=_quiet_child)
        try:
            pid = executor.submit(_ready).result(timeout=START_TIMEOUT_S)
        except Exception:  # no child: the run judges on its loop, as before
            executor.shutdown(wait=False, cancel_futures=True)
            return None
        pool = cls(executor)
        pool.pid = pid
        return pool

    def submit(self, job: JudgeJob, deliver: Deliver) -> None:
        """Judge ``job`` soon; ``deliver(outcome)`` runs on the loop with its outcome."""
        if self.broken:
            self._deliver(deliver, _outcome(job))
            return
        self._waiting.append((job, deliver))
        if len(self._waiting) >= MAX_BATCH:
            self._flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(FLUSH_S, self._flush)

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._waiting = self._waiting, []
        if not batch:
            return
        try:
            sent = asyncio.wrap_future(self._executor.submit(judge_batch, [job for job, _ in batch]))
        except Exception:  # the pool is shut down or broken already
            self._judge_here(batch)
            return
        self._batches.add(sent)
        sent.add_done_callback(lambda done: self._delivered(batch, done))

    def _delivered(self, batch: list[tuple[JudgeJob, Deliver]], done: asyncio.Future[Any]) -> None:
        self._batches.discard(done)
        error = None if done.cancelled() else done.exception()
        if done.cancelled() or error is not None:
            # The child died, or a job or its verdict would not pickle: judged here, none lost.
            self.broken = True
            self._judge_here(batch)
            return
        for (_, deliver), outcome in zip(batch, done.result(), strict=True):
            self._deliver(deliver, outcome)

    def _judge_here(self, batch: list[tuple[JudgeJob, Deliver]]) -> None:
        for job, deliver in batch:
            self._deliver(deliver, _outcome(job))

    def _deliver(self, deliver: Deliver, outcome: Outcome) -> None:
        # One sample's failed delivery must not keep the verdicts of the rest of its batch.
        try:
            deliver(outcome)
        except Exception as exc:
            self.failures.append(exc)

    async def drain(self) -> None:
        """Wait until every job handed over so far is delivered. A child that holds a batch past
        BATCH_DEADLINE_S is stuck (a batch takes milliseconds): it is killed, and its batches are
        judged here."""
        while self._waiting or self._batches:
            self._flush()
            if self._batches:
                _, late = await asyncio.wait(set(self._batches), timeout=BATCH_DEADLINE_S)
                if late:
                    self._kill()

    def close(self) -> None:
        """Let the child go (it has nothing left: the run drained it). Once it is waited for, its
        CPU counts in the process's (evalui.run.phases.cpu_seconds). A child that does not end
        within CLOSE_TIMEOUT_S is killed."""
        self._executor.shutdown(wait=False, cancel_futures=True)
        if self.pid is not None and not _ended(self.pid, CLOSE_TIMEOUT_S):
            self._kill()
        self._executor.shutdown(wait=True)

    def _kill(self) -> None:
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _ended(pid: int, timeout_s: float) -> bool:
    """Whether the child has exited (the executor reaps it) within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                if stat.read().rpartition(b")")[2].split()[0] == b"Z":
                    return True
        except OSError:  # gone (reaped), or no /proc: then the executor's own wait will tell
            return True
        time.sleep(0.02)
    return False
