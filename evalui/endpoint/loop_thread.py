"""An event loop in its own thread that other threads hand coroutines to, cheaply.

The runner's worker threads hand every model call to the client's loop and wait for its reply.
``asyncio.run_coroutine_threadsafe`` costs a wake-up of the loop (a write to its self-pipe) and a
``concurrent.futures.Future`` (a Condition, notify_all) per call; at thousands of calls a second
that is a visible share of the run. Here calls queue up and one wake-up starts all the calls
queued since the last one, and each caller waits on a plain lock that the loop releases.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine


class Call:
    """One coroutine handed to the loop; ``wait`` returns its result or raises its exception."""

    __slots__ = ("coroutine", "task", "result", "error", "cancelled", "_done")

    def __init__(self, coroutine: Coroutine):
        self.coroutine = coroutine
        self.task: asyncio.Task | None = None
        self.result = None
        self.error: BaseException | None = None
        self.cancelled = False
        self._done = threading.Lock()
        self._done.acquire()  # released by the loop when the call has ended

    def wait(self, timeout: float) -> bool:
        """True once the call has ended (then read ``result`` or ``error``)."""
        return self._done.acquire(timeout=timeout)

    def _finish(self, task: asyncio.Task) -> None:
        if task.cancelled():
            self.error = asyncio.CancelledError()
        else:
            self.error = task.exception()
            if self.error is None:
                self.result = task.result()
        self._done.release()


class LoopThread:
    """An event loop in a daemon thread, stopped when its owner is collected or closed."""

    def __init__(self, name: str):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._lock = threading.Lock()
        self._queue: list[Call] = []
        self._woken = False
        self.thread.start()

    def run(self, coroutine: Coroutine):
        """Run a coroutine on the loop from another thread and wait for it (no cancel)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def submit(self, coroutine: Coroutine) -> Call:
        call = Call(coroutine)
        with self._lock:
            self._queue.append(call)
            wake, self._woken = not self._woken, True
        if wake:
            self.loop.call_soon_threadsafe(self._start_queued)
        return call

    def cancel(self, call: Call) -> None:
        call.cancelled = True
        self.loop.call_soon_threadsafe(self._cancel, call)

    def _start_queued(self) -> None:
        with self._lock:
            calls, self._queue, self._woken = self._queue, [], False
        for call in calls:
            if call.cancelled:
                call.coroutine.close()
                continue
            call.task = self.loop.create_task(call.coroutine)
            call.task.add_done_callback(call._finish)

    @staticmethod
    def _cancel(call: Call) -> None:
        if call.task is not None:
            call.task.cancel()

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
