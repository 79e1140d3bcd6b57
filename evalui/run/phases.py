"""Where a run's time went: marks at the seams of the run path, for the command's summary.

A run command makes one ``RunPhases`` and hands it to ``lifecycle.execute``; the runner and a
sample's run mark it. ``timings()`` then gives, in seconds:

- ``load_s``: process start to the moment the first sample may start (imports, registering the
  run, the task with its checker, the task's ``prepare``);
- ``first_request_s``: from then to the first request handed to the endpoint client;
- ``run_s``: from the first request to the last verdict committed;
- ``export_s``: from then until the command has its summary (status, summary, exports,
  leaderboard);
- ``judge_s`` and ``store_s``: time spent in the task's judge and in handing writes to the store
  (packing included), summed over samples; they overlap ``run_s`` and, with concurrent samples,
  may exceed it;
- ``commit_s``: the store's writer thread committing, over the run phase (off the samples' path,
  but the same process's CPU);
- ``cpu_s``: the process's CPU time so far (user + system, its reaped children included), and
  ``run_cpu_s`` the part spent in the run phase: against a fast endpoint, CPU per sample is
  what caps throughput;
- ``loop_cpu_s``: the CPU time of the event loop's thread that sends the run's requests, over the
  run phase (null when the run has no such loop, or off Linux). The loop holds a request from its
  send to its answer's verdict, so its CPU per sample caps the requests in flight at once: about
  latency / (loop CPU per sample), whatever the concurrency;
- ``claim_wait_s``: over the run phase, the seconds during which the workers on the event loop had
  no sample to send, waiting for the store to hand over their next claim (null on worker threads);
- ``gc_s``: over the run phase, the seconds Python's cyclic garbage collector ran, in any thread
  (while it runs, no other thread of the process runs Python: evalui.run.heap says why it is rare);
- ``total_s``: process start to the timings.

"Process start" is the kernel's (Linux); elsewhere it is when the ``RunPhases`` was made. The
hot path pays a clock read and a float add per sample; nothing is allocated per sample here.
"""

from __future__ import annotations

import gc
import os
import threading
import time


def process_age_s() -> float | None:
    """Seconds since this process started, from /proc (10 ms resolution); None where unknown."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            stat = handle.read()
        # The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
        start_ticks = int(stat[stat.rindex(b")") + 2:].split()[19])
        # starttime counts from boot in clock ticks, suspended time included: CLOCK_BOOTTIME's clock.
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def cpu_seconds() -> float:
    """User + system CPU of this process and of its children that have been waited for."""
    try:
        import resource
    except ImportError:  # Windows: no getrusage
        return time.process_time()
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def thread_cpu_seconds(native_id: int | None) -> float | None:
    """User + system CPU of one thread of this process (``threading.Thread.native_id``), from
    /proc; None where unknown (another system, or the thread has ended)."""
    if native_id is None:
        return None
    try:
        with open(f"/proc/self/task/{native_id}/stat", "rb") as handle:
            stat = handle.read()
        fields = stat[stat.rindex(b")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class _CollectorClock:
    """The cyclic collector's seconds in this process, summed from the moment it is installed."""

    def __init__(self) -> None:
        self.total = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        # The collector does not run twice at once (one thread holds the interpreter lock and its
        # collection ends before another starts), so a start is always followed by its stop.
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._started


_collector: _CollectorClock | None = None
_collector_lock = threading.Lock()


def collector_seconds() -> float:
    """Seconds the cyclic collector has run since the first call (one callback for the process's life)."""
    global _collector
    if _collector is None:
        with _collector_lock:
            if _collector is None:
                _collector = _CollectorClock()
                gc.callbacks.append(_collector)
    return _collector.total


class RunPhases:
    """The marks of one run, on ``time.perf_counter``'s clock."""

    def __init__(self, origin: float | None = None):
        self.origin = time.perf_counter() if origin is None else origin
        self.ready: float | None = None
        self.first_request: float | None = None
        self.run_end: float | None = None
        self.judge_s = 0.0
        self.store_s = 0.0
        self.commit_s = 0.0
        self._cpu_at_ready: float | None = None
        self._cpu_at_run_end: float | None = None
        self._commit_at_ready = 0.0
        self._loop_thread: int | None = None  # native id of the thread whose CPU is loop_cpu_s
        self._loop_cpu_at_ready: float | None = None
        self._loop_cpu_at_run_end: float | None = None
        self.claim_wait_s: float | None = None  # set by the runner (evalui.run.claims.RunWorker.wait_s)
        self._gc_at_ready: float | None = None
        self._gc_at_run_end: float | None = None
        # Worker threads judge concurrently; a bare += on a shared float can lose an update.
        self._lock = threading.Lock()

    @classmethod
    def since_process_start(cls) -> RunPhases:
        age = process_age_s()
        return cls(None if age is None else time.perf_counter() - age)

    def watch_loop(self, thread: threading.Thread | None) -> None:
        """The event loop's thread that will send the requests (before ``mark_ready``)."""
        self._loop_thread = thread.native_id if thread is not None else None

    def mark_ready(self, commit_s: float = 0.0) -> None:
        """The samples may start now; ``commit_s``: the store's commit seconds so far."""
        self.ready, self._cpu_at_ready, self._commit_at_ready = time.perf_counter(), cpu_seconds(), commit_s
        self._loop_cpu_at_ready = thread_cpu_seconds(self._loop_thread)
        self._gc_at_ready = collector_seconds()
        self.first_request = self.run_end = None

    def mark_first_request(self) -> None:
        if self.first_request is None:
            self.first_request = time.perf_counter()

    def mark_run_end(self, commit_s: float = 0.0) -> None:
        """Every verdict of the run is committed; ``commit_s`` as for ``mark_ready``."""
        self.run_end, self._cpu_at_run_end = time.perf_counter(), cpu_seconds()
        self._loop_cpu_at_run_end = thread_cpu_seconds(self._loop_thread)
        self._gc_at_run_end = collector_seconds()
        self.commit_s = max(0.0, commit_s - self._commit_at_ready)

    def add_judge(self, seconds: float) -> None:
        with self._lock:
            self.judge_s += seconds

    def add_store(self, seconds: float) -> None:
        with self._lock:
            self.store_s += seconds

    def timings(self) -> dict:
        """The figures, rounded to the millisecond; a phase not reached is null."""
        now = time.perf_counter()
        ready, first, end = self.ready, self.first_request, self.run_end
        first = first if first is not None else end  # nothing was asked (every sample was answered before)

        def span(start, stop):
            return round(max(0.0, stop - start), 3) if start is not None and stop is not None else None

        run_cpu = (self._cpu_at_run_end - self._cpu_at_ready
                   if self._cpu_at_ready is not None and self._cpu_at_run_end is not None else None)
        loop_start, loop_end = self._loop_cpu_at_ready, self._loop_cpu_at_run_end
        loop_cpu = loop_end - loop_start if loop_start is not None and loop_end is not None else None
        gc_start, gc_end = self._gc_at_ready, self._gc_at_run_end
        collector = gc_end - gc_start if gc_start is not None and gc_end is not None else None
        return {"load_s": span(self.origin, ready), "first_request_s": span(ready, first), "run_s": span(first, end),
                "export_s": span(end, now), "judge_s": round(self.judge_s, 3), "store_s": round(self.store_s, 3),
                "commit_s": round(self.commit_s, 3), "cpu_s": round(cpu_seconds(), 3),
                "run_cpu_s": None if run_cpu is None else round(run_cpu, 3),
                "loop_cpu_s": None if loop_cpu is None else round(loop_cpu, 3),
                "claim_wait_s": None if self.claim_wait_s is None else round(self.claim_wait_s, 3),
                "gc_s": None if collector is None else round(collector, 3),
                "total_s": span(self.origin, now)}
