"""The runs this process is running, and what their pages read while they go: one registry.

A run's requests in flight and its pause (the endpoint client's LiveRun) and what it has cost so far
(its CostMeter) are registered together when the runner starts and forgotten together when it stops,
so a page asks one place what a run is doing now.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from evalui.endpoint.in_flight import LiveRun
from evalui.run.pricing import CostMeter


@dataclass(frozen=True)
class LiveState:
    exp_id: str
    requests: LiveRun  # the calls in flight, and a pause of the endpoint's circuit
    meter: CostMeter | None = None  # None: the run has no price


class LiveRuns:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, LiveState] = {}

    @contextmanager
    def running(self, state: LiveState) -> Iterator[LiveState]:
        """Registered for the block: the runner's whole run."""
        with self._lock:
            self._runs[state.exp_id] = state
        try:
            yield state
        finally:
            with self._lock:
                if self._runs.get(state.exp_id) is state:
                    del self._runs[state.exp_id]

    def get(self, exp_id: str | None) -> LiveState | None:
        if not exp_id:
            return None
        with self._lock:
            return self._runs.get(exp_id)


LIVE_RUNS = LiveRuns()


def live_state(exp_id: str | None) -> LiveState | None:
    """What a run this process is running is doing now; None when it runs elsewhere or not at all."""
    return LIVE_RUNS.get(exp_id)


def live_requests(exp_id: str | None) -> LiveRun | None:
    """The run's requests in flight and its pause, while this process runs it."""
    state = LIVE_RUNS.get(exp_id)
    return state.requests if state is not None else None
