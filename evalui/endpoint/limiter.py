"""One limiter per endpoint in the process, keyed by (base URL, model).

Runs that the dashboard starts against the same endpoint share it: together they keep at most
the endpoint's concurrency in flight and start at most its requests per minute, however many runs
there are. Each run still caps itself with its own concurrency (its worker threads).

What the endpoint's limits are, while several runs use it:
- concurrency: the largest that any of them asked for. A run alone is never slowed below its own
  setting, and two runs never put more in flight together than the most generous one thought
  the endpoint could take.
- requests per minute: the smallest that any of them set. An RPM is usually a provider's quota,
  which every run against that endpoint (and key) spends from.

The runner holds a slot for a sample's call (which may make several requests, as agents do) and
spaces the calls' starts by the RPM. Slots go to waiting calls first come, first served: a run
whose call has just ended must not take the freed slot ahead of another run's call that was
already waiting, or one run could starve the other until it ends.
"""

from __future__ import annotations

import functools
import itertools
import threading
import time
from collections import deque
from urllib.parse import urlsplit, urlunsplit

CANCEL_POLL_S = 0.1


def endpoint_key(base_url: str, model: str) -> tuple[str, str]:
    """The same endpoint however its URL was typed. Credentials (``user:pw@``, a query string)
    are left out, so no key is held in the registry."""
    parts = urlsplit(base_url.strip())
    host = parts.netloc.rsplit("@", 1)[-1].lower()
    return urlunsplit((parts.scheme.lower(), host, parts.path.rstrip("/"), "", "")), model


class EndpointLimiter:
    """Slots (concurrency) and start times (RPM) shared by the runs of one endpoint."""

    def __init__(self, key: tuple[str, str]):
        self.key = key
        self._cond = threading.Condition()
        self._users: dict[int, tuple[int, float | None]] = {}  # lease id -> (concurrency, rpm)
        self._ids = itertools.count(1)
        self._in_flight = 0
        self._next_start = 0.0
        self._waiting: deque[int] = deque()  # tickets of blocked acquires, oldest first
        self._tickets = itertools.count(1)
        # The users' limits combined, kept as they join and leave: every call reads them.
        self._limit, self._spacing = 1, 0.0

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def waiting(self) -> int:
        with self._cond:
            return len(self._waiting)

    @property
    def concurrency(self) -> int:
        with self._cond:
            return self._capacity()

    def _capacity(self) -> int:
        return self._limit

    def _interval(self) -> float:
        return self._spacing

    def _combine(self) -> None:
        """The endpoint's limits from its users' (with the lock held; see the module's docstring)."""
        self._limit = max((c for c, _ in self._users.values()), default=1)
        rates = [r for _, r in self._users.values() if r]
        self._spacing = 60.0 / min(rates) if rates else 0.0

    def join(self, concurrency: int, requests_per_minute: float | None = None) -> Lease:
        """A run starts using the endpoint; ``Lease.close()`` when it ends."""
        with self._cond:
            lease_id = next(self._ids)
            self._users[lease_id] = (max(1, int(concurrency)), requests_per_minute or None)
            self._combine()
            self._cond.notify_all()  # a larger concurrency frees waiting calls
        return Lease(self, lease_id)

    def _leave(self, lease_id: int) -> None:
        with self._cond:
            self._users.pop(lease_id, None)
            self._combine()
            self._cond.notify_all()
        _forget_if_idle(self)

    def acquire(self, cancel: threading.Event | None = None) -> bool:
        """Wait for a slot and for this call's start time; False if ``cancel`` was set first."""
        with self._cond:
            if self._waiting or self._in_flight >= self._capacity():
                ticket = next(self._tickets)
                self._waiting.append(ticket)
                try:
                    while self._waiting[0] != ticket or self._in_flight >= self._capacity():
                        if cancel is not None and cancel.is_set():
                            return False
                        self._cond.wait(CANCEL_POLL_S)
                finally:
                    self._waiting.remove(ticket)
                    self._cond.notify_all()  # the next in line may go, or must now be first
            delay = self._take()
        if delay > 0:
            # The slot is held while waiting for the start time, so the spacing holds across runs.
            if cancel is not None and cancel.wait(delay):
                self.release()
                return False
            if cancel is None:
                time.sleep(delay)
        return True

    def try_acquire(self) -> float | None:
        """A slot now, and the seconds to wait before starting (the RPM's spacing); None if no slot
        is free. For callers on an event loop, which must not block."""
        with self._cond:
            return self._take() if not self._waiting and self._in_flight < self._capacity() else None

    def _take(self) -> float:
        self._in_flight += 1
        now = time.monotonic()
        start = max(now, self._next_start)
        self._next_start = start + self._interval()
        return start - now

    def release(self) -> None:
        with self._cond:
            self._in_flight -= 1
            self._cond.notify_all()  # only the first in line takes it; the others wait on

    def idle(self) -> bool:
        with self._cond:
            return not self._users and not self._in_flight


class Lease:
    """One run's use of an endpoint's limiter."""

    def __init__(self, limiter: EndpointLimiter, lease_id: int):
        self.limiter, self._id, self._closed = limiter, lease_id, False

    def acquire(self, cancel: threading.Event | None = None) -> bool:
        return self.limiter.acquire(cancel)

    def try_acquire(self) -> float | None:
        return self.limiter.try_acquire()

    def release(self) -> None:
        self.limiter.release()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.limiter._leave(self._id)

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@functools.cache
def _registry() -> tuple[dict, threading.Lock]:
    return {}, threading.RLock()


def endpoint_limiter(base_url: str, model: str) -> EndpointLimiter:
    """The process-wide limiter of an endpoint (created on first use, dropped when idle)."""
    limiters, lock = _registry()
    key = endpoint_key(base_url, model)
    with lock:
        limiter = limiters.get(key)
        if limiter is None:
            limiter = limiters[key] = EndpointLimiter(key)
        return limiter


def join_endpoint(base_url: str, model: str, concurrency: int, requests_per_minute: float | None = None) -> Lease:
    """A run starts using an endpoint: its lease on the endpoint's shared limiter."""
    _, lock = _registry()
    # Under the registry's lock, so that an idle limiter is not dropped between finding and joining it.
    with lock:
        return endpoint_limiter(base_url, model).join(concurrency, requests_per_minute)


def private_limiter() -> EndpointLimiter:
    """For a client that names no endpoint: a limiter shared with nobody."""
    return EndpointLimiter(("", ""))


def _forget_if_idle(limiter: EndpointLimiter) -> None:
    # Base URLs are typed by visitors; a long-lived server must not keep one limiter per URL ever seen.
    limiters, lock = _registry()
    with lock:
        if limiters.get(limiter.key) is limiter and limiter.idle():
            del limiters[limiter.key]
