"""The requests a run has in flight: which sample, for how long, on which try; and the live
state of each running run (in flight, paused, last error), for the pages that follow it.

The runner tracks each sample's call on a board (``Board.track``); the client notes the try it is
on through a context variable, so tasks in between (agents, multi-turn conversations) need not
pass anything along.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from dataclasses import dataclass

SHOWN = 3  # requests named in one line; the rest are counted


@dataclass
class Flight:
    """One sample's call, updated in place by the client (on its loop) and read by the pages."""
    sample_id: str
    started: float  # time.monotonic()
    attempt: int = 1
    max_attempts: int = 1
    waiting: bool = False  # held by an open circuit: nothing is sent


@dataclass(frozen=True)
class RequestInFlight:
    sample_id: str
    elapsed_s: float
    attempt: int
    max_attempts: int
    waiting: bool = False

    def describe(self) -> str:
        tried = f", try {self.attempt}/{self.max_attempts}" if self.attempt > 1 else ""
        return f"{self.sample_id} ({self.elapsed_s:.0f} s{tried}{', waiting' if self.waiting else ''})"


_CURRENT: contextvars.ContextVar[Flight | None] = contextvars.ContextVar("evalui_flight", default=None)


def current() -> Flight | None:
    """The sample call this code runs for (None outside a tracked call)."""
    return _CURRENT.get()


class Board:
    """A run's calls in flight. Thread-safe: worker threads add and remove, pages read."""

    def __init__(self):
        self._flights: dict[int, Flight] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._flights)

    @contextlib.contextmanager
    def track(self, sample_id: str):
        flight = Flight(sample_id, time.monotonic())
        token = _CURRENT.set(flight)
        with self._lock:
            self._flights[id(flight)] = flight
        try:
            yield flight
        finally:
            with self._lock:
                self._flights.pop(id(flight), None)
            _CURRENT.reset(token)

    def snapshot(self) -> tuple[RequestInFlight, ...]:
        """The calls in flight, longest-running first."""
        now = time.monotonic()
        with self._lock:
            flights = list(self._flights.values())
        return tuple(RequestInFlight(f.sample_id, now - f.started, f.attempt, f.max_attempts, f.waiting)
                     for f in sorted(flights, key=lambda f: f.started))


def describe(requests: tuple[RequestInFlight, ...], shown: int = SHOWN) -> str:
    """"3 in flight: simple_12 (14 s, try 2/5), …"; "" when nothing is in flight."""
    if not requests:
        return ""
    named = ", ".join(r.describe() for r in requests[:shown])
    return f"{len(requests)} in flight: {named}" + (", …" if len(requests) > shown else "")


@dataclass
class LiveRun:
    """What a page shows of a running run beyond the store's counts."""
    exp_id: str
    board: Board
    circuit: object | None = None  # an EndpointCircuit (evalui.endpoint.circuit), if the client has one
    last_error: str = ""  # the plain words of the latest failed sample
    _snapshot: tuple = ()
    _snapshot_at: float = float("-inf")

    def requests(self, max_age_s: float = 0.0) -> tuple[RequestInFlight, ...]:
        """The calls in flight; with ``max_age_s``, a snapshot up to that old may do (a fast run
        reports thousands of samples a second, and a snapshot per report would cost a share of it)."""
        if not len(self.board):
            return ()
        now = time.monotonic()
        if now - self._snapshot_at > max_age_s:
            self._snapshot, self._snapshot_at = self.board.snapshot(), now
        return self._snapshot

    def paused(self) -> str:
        """"paused: the endpoint at HOST does not answer (since …); probing every N s", or ""."""
        return self.circuit.state().describe() if self.circuit is not None else ""

