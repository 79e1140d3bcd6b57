"""A circuit breaker for one endpoint: a run whose endpoint stops answering pauses instead of
spending every remaining sample's retries on it.

After ``threshold`` consecutive connection-level failures (refused, DNS, connect timeout, a
dropped connection), counted across samples, the circuit opens: requests wait, sending nothing,
and one cheap probe at a time asks the endpoint (with a growing interval) until it answers; then
the circuit closes and the waiting requests go on, their retries untouched. A 4xx, a 5xx or a
malformed reply is an answer: the host is up, and the failure belongs to the sample.

Only an endpoint that has answered once can open the circuit. One that never answered is
misconfigured (a wrong port, a typo in the host), not gone: its requests fail at once with a
plain message, as before, instead of waiting forever.

Hand-written rather than taken from a library (pybreaker, aiobreaker): those fail the calls
while the circuit is open; here a call waits for the circuit to close, which is what keeps a
sample from being counted as an error for the endpoint's outage.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

DEFAULT_THRESHOLD = 3
PROBE_FIRST_S = 1.0
PROBE_MAX_S = 15.0


@dataclass(frozen=True)
class CircuitState:
    open: bool
    host: str
    since: float | None = None  # wall-clock time of the failure that opened the circuit
    probe_every_s: float = PROBE_FIRST_S  # the interval before the next probe
    probes: int = 0  # probes sent since the circuit opened

    def describe(self) -> str:
        """The run's status while it is paused; "" while the circuit is closed."""
        if not self.open:
            return ""
        since = time.strftime("%H:%M:%S", time.localtime(self.since)) if self.since else "?"
        return (f"paused: the endpoint at {self.host} does not answer (since {since}); "
                f"probing every {self.probe_every_s:g} s")


class Breaker:
    """The state machine alone: no I/O, thread-safe, its clock given (a test can pass its own)."""

    def __init__(self, host: str, threshold: int = DEFAULT_THRESHOLD, probe_first_s: float = PROBE_FIRST_S,
                 probe_max_s: float = PROBE_MAX_S, clock: Callable[[], float] = time.time):
        self.host, self.threshold = host, max(1, threshold)
        self._probe_first, self._probe_max, self._clock = probe_first_s, probe_max_s, clock
        self._lock = threading.Lock()
        self._answered_once = False
        self._failures = 0  # consecutive connection-level failures
        self._state = CircuitState(False, host, probe_every_s=probe_first_s)

    @property
    def is_open(self) -> bool:
        return self._state.open

    def state(self) -> CircuitState:
        return self._state

    def answered(self) -> None:
        """A request got an HTTP answer (any status): the endpoint is up; the count starts again."""
        if self._answered_once and not self._failures:
            return  # the usual case, once per request: no lock
        with self._lock:
            self._answered_once = True
            if not self._state.open:
                self._failures = 0

    def unreachable(self) -> bool:
        """A connection-level failure; True if the circuit is open now, so that the request waits
        (uncharged) rather than fails."""
        with self._lock:
            if self._state.open:
                return True
            self._failures += 1
            if self._answered_once and self._failures >= self.threshold:
                self._state = CircuitState(True, self.host, since=self._clock(), probe_every_s=self._probe_first)
            return self._state.open

    def probe_failed(self) -> float:
        """The endpoint still does not answer: the next probe waits twice as long (up to a cap)."""
        with self._lock:
            state = self._state
            if state.open:
                self._state = CircuitState(True, self.host, state.since, min(self._probe_max, state.probe_every_s * 2),
                                           state.probes + 1)
            return self._state.probe_every_s

    def probe_answered(self) -> None:
        """The endpoint answers again: the circuit closes."""
        with self._lock:
            self._failures = 0
            self._answered_once = True
            self._state = CircuitState(False, self.host, probe_every_s=self._probe_first,
                                       probes=self._state.probes + 1 if self._state.open else 0)


class EndpointCircuit:
    """The breaker on an event loop: requests wait while it is open, and one probe task runs
    while anyone waits. Every method but ``state`` runs on the client's loop."""

    def __init__(self, breaker: Breaker, probe: Callable[[], Awaitable[bool]]):
        self.breaker = breaker
        self._probe = probe
        self._closed = asyncio.Event()
        self._closed.set()
        self._prober: asyncio.Task | None = None
        self._waiting = 0

    def state(self) -> CircuitState:
        return self.breaker.state()

    def answered(self) -> None:
        self.breaker.answered()

    def unreachable(self) -> bool:
        opened = self.breaker.unreachable()
        if opened:
            self._closed.clear()
        return opened

    async def wait_until_closed(self) -> bool:
        """Return at once while closed (False); else wait until a probe gets an answer (True).
        A cancel (asyncio.CancelledError) ends the wait; the request then was never sent."""
        if not self.breaker.is_open:
            return False
        self._waiting += 1
        try:
            if self._prober is None or self._prober.done():
                self._prober = asyncio.ensure_future(self._probe_until_answered())
            await self._closed.wait()
            return True
        finally:
            self._waiting -= 1

    async def _probe_until_answered(self) -> None:
        while self.breaker.is_open:
            await asyncio.sleep(self.breaker.state().probe_every_s)
            if not self._waiting:
                return  # nobody waits (the run was cancelled): the next request starts probing again
            try:
                answered = await self._probe()
            except Exception:  # a probe that failed in an unforeseen way is a probe without an answer
                answered = False
            if answered:
                self.breaker.probe_answered()
                self._closed.set()
                return
            self.breaker.probe_failed()
