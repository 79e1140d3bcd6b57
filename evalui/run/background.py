"""Runs that outlive the page that started them: one thread per run, shared by the whole process.

The dashboard starts runs here so that a reload, a second browser or a closed tab does not stop
them; progress is read back from the store and from the run's recent log lines.
"""

from __future__ import annotations

import functools
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class BackgroundRun:
    exp_id: str
    cancel: threading.Event = field(default_factory=threading.Event)
    log: deque = field(default_factory=lambda: deque(maxlen=500))
    thread: threading.Thread | None = None
    result: object = None
    error: str | None = None
    error_shown: bool = False  # the page warns about a failed run once
    started_at: float = field(default_factory=time.time)

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def say(self, line: str) -> None:
        self.log.append(f"{time.strftime('%H:%M:%S')} {line}")


class BackgroundRuns:
    def __init__(self):
        self._runs: dict[str, BackgroundRun] = {}
        self._lock = threading.Lock()

    def start(self, exp_id: str, work: Callable[[BackgroundRun], object]) -> BackgroundRun:
        """Start ``work(run)`` in a thread, unless a run with this exp_id is already going."""
        with self._lock:
            current = self._runs.get(exp_id)
            if current and current.running:
                return current
            run = BackgroundRun(exp_id)

            def target():
                try:
                    run.result = work(run)
                except Exception as exc:  # shown in the page's log; the store keeps what was done
                    run.error = f"{type(exc).__name__}: {exc}"
                    run.say(f"failed: {run.error}")
                    traceback.print_exc()

            run.thread = threading.Thread(target=target, name=f"evalui-{exp_id}", daemon=True)
            self._runs[exp_id] = run
            run.thread.start()
            return run

    def get(self, exp_id: str) -> BackgroundRun | None:
        with self._lock:
            return self._runs.get(exp_id)

    def cancel(self, exp_id: str, store=None) -> bool:
        """Cancel the run here; with ``store``, a run that another process or dashboard replica
        executes is asked to stop through the store (its workers see it within a second or two)."""
        run = self.get(exp_id)
        if run and run.running:
            run.cancel.set()
            run.say("cancel requested; requests in flight will finish")
            return True
        return bool(store is not None and store.request_cancel(exp_id))

    def running_ids(self) -> list[str]:
        with self._lock:
            return [exp_id for exp_id, run in self._runs.items() if run.running]


@functools.cache
def background_runs() -> BackgroundRuns:
    """The process-wide registry (runs are shared by every visitor, like the store)."""
    return BackgroundRuns()
