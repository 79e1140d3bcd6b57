"""One worker's share of a run: it claims samples a few at a time, keeps its leases alive, and
stops when any dashboard or process cancels the run.

Several workers (CLI processes, dashboards on one PostgreSQL, or both) may run one exp_id at once:
each asks only the samples it claimed, so none is asked twice and a judged one never again. A
worker that runs out of claimable samples while others still hold some waits for them, so that the
samples of a worker that died come back to it when their lease runs out.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Protocol

from evalui.store.claims import process_owner
from evalui.store.run_store import RunStore, Sample

HEARTBEAT_S = 1.0  # also how soon a cancel from another replica is seen
WAIT_POLL_S = 0.25
# ``take`` claims ahead about this long of its workers' samples, at the pace they take them: a
# claim waits for the store's group commit under way, which against a fast endpoint took longer
# than a fixed claim lasted, and a larger fixed claim would hold, against a slow endpoint, samples
# that another replica could be asking. Doubled (to MAX_AHEAD_S) each time the workers ran out all
# the same.
CLAIM_AHEAD_S = 0.5
MAX_AHEAD_S = 4.0
PACE_MIN_S = 0.05  # the pace is read over at least this long
MAX_CLAIM = 2048  # samples in one claim, whatever the pace


class Claims(Protocol):
    """A run's samples as its workers take them: ``next`` on a worker thread, ``await take()`` on
    the client's event loop (None, like StopIteration, when none is left to take)."""

    def __iter__(self) -> Iterator[Sample]: ...

    def __next__(self) -> Sample: ...

    async def take(self) -> Sample | None: ...


class RunWorker:
    """Joins ``exp_id`` on creation; iterate it (``next(worker, None)``, or ``await worker.take()``
    on an event loop) for the samples it claimed; ``leave()`` at the end."""

    def __init__(self, store: RunStore, exp_id: str, cancel: threading.Event, batch: int = 8,
                 known: Iterable[Sample] = ()):
        self.store, self.exp_id, self.cancel = store, exp_id, cancel
        # The run's samples as the runner read them: a claimed one is taken from here unless another
        # worker has written it since (its updated_at), instead of being read again row by row.
        self._known = {sample.sample_id: sample for sample in known}
        self.worker_id = f"{process_owner()}:{uuid.uuid4().hex[:8]}"
        self.batch = max(1, batch)  # samples a claim asks for; take() sizes its claims to the workers' pace
        self._first_batch = self.batch
        self.ahead_s = CLAIM_AHEAD_S  # how long of the workers' samples take() claims ahead
        self._paced_at: float | None = None  # when, and at how many taken, the pace was last read
        self._paced_taken = 0
        self.starved = 0  # times take()'s workers found no claimed sample while a claim was under way
        # Seconds during which take()'s workers had no claimed sample after the first one was taken
        # (evalui.run.phases' claim_wait_s): the first claim is the run's start, not a wait.
        self.wait_s = 0.0
        self._waiting_since: float | None = None
        self._taken = 0
        self._claimed: deque[Sample] = deque()
        self._refilling: asyncio.Future[bool] | None = None  # a claim under way for take()
        self._refilling_started_full = False  # that claim began while samples were still in hand
        self._drained = False  # take() found nothing left to claim
        self._claim_error: BaseException | None = None
        self._lock = threading.Lock()
        self._cancel_seen = store.join_run(exp_id, self.worker_id)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"evalui-worker-{exp_id}", daemon=True)
        self._thread.start()

    # the samples -------------------------------------------------------------------------------
    def __iter__(self) -> RunWorker:
        return self

    def __next__(self) -> Sample:
        while True:
            try:
                return self._claimed.popleft()
            except IndexError:
                if not self._fill():
                    raise StopIteration from None

    def _fill(self, ahead: bool = False) -> bool:
        """Claim more samples, waiting while other workers hold the only ones left; False when
        there is nothing left to claim (or the run was cancelled). ``ahead``: claim a batch even
        though some claimed samples are left; it waits only when none are."""
        with self._lock:
            while not self.cancel.is_set():
                if self._claimed and not ahead:
                    return True
                claimed = self._samples(self.store.claim_keys(self.exp_id, self.worker_id, self.batch))
                if claimed:
                    self._claimed.extend(claimed)
                    return True
                if self._claimed:
                    return True  # none free now; the claimed ones keep the worker busy meanwhile
                expiry = self.store.held_elsewhere(self.exp_id, self.worker_id)
                if expiry is None:
                    return False  # nothing left that anyone holds: this worker is done
                # Another worker holds samples: they are either judged soon or, if it died, free
                # again when their lease runs out.
                self.cancel.wait(min(WAIT_POLL_S, max(0.0, expiry - time.time()) + 0.01))
        return False

    def _samples(self, keys: list[tuple[str, float | None]]) -> list[Sample]:
        """The claimed samples, in the run's order: those unchanged since the runner read them as it
        read them, the others (written by another worker since, or not read) from the store."""
        kept, stale = [], []
        for sample_id, updated_at in keys:
            sample = self._known.pop(sample_id, None)
            if sample is not None and sample.updated_at == updated_at:
                sample.claimed_by = self.worker_id
                kept.append(sample)
            else:
                stale.append(sample_id)
        if not stale:
            return kept
        kept += self.store.samples_by_id(self.exp_id, stale).values()
        return sorted(kept, key=lambda sample: sample.position)

    async def take(self) -> Sample | None:
        """The next claimed sample, for a worker on an event loop. The store is asked in a thread,
        and while two claims' worth are still in hand: a loop whose every coroutine waited for the
        next claim at once would leave the endpoint idle meanwhile. Claims are sized to the workers'
        pace (CLAIM_AHEAD_S); when the samples run out all the same, the claims hold twice as long."""
        while True:
            if self._claimed:
                sample = self._claimed.popleft()
                self._taken += 1
                if len(self._claimed) < 2 * self.batch and not self._drained:
                    self._refill()
                return sample
            if self._drained:
                if self._claim_error is not None:
                    raise self._claim_error  # the store failed under the run: the runner says so
                return None
            refill = self._refill()
            if not refill.done() and self._refilling_started_full:
                # Claimed ahead, and still too late: the next claims hold longer.
                self._refilling_started_full = False
                self.starved += 1
                self.ahead_s = min(MAX_AHEAD_S, self.ahead_s * 2)
            if self._taken and self._waiting_since is None:
                self._waiting_since = time.perf_counter()  # the first of the workers now waiting
            await asyncio.shield(refill)
            if self._waiting_since is not None:  # the first of them to go on ends the wait
                self.wait_s += time.perf_counter() - self._waiting_since
                self._waiting_since = None
            self._refilled(refill)  # awaiting a finished claim does not yield: its callback may not have run

    def _refill(self) -> asyncio.Future[bool]:
        """One claim at a time, in a thread, shared by every coroutine that waits for it."""
        if self._refilling is None:
            self._refilling_started_full = bool(self._claimed)
            self._pace()
            self._refilling = asyncio.ensure_future(asyncio.to_thread(self._fill, True))
            self._refilling.add_done_callback(self._refilled)
        return self._refilling

    def _pace(self) -> None:
        """Size the next claim: ``ahead_s`` of samples at the pace taken since the pace was last
        read, never fewer than the first claim, never more than MAX_CLAIM, and at most twice the
        last claim: a claim takes longer the more it holds, and the samples in hand must outlast it."""
        now = time.perf_counter()
        if self._paced_at is None:
            self._paced_at, self._paced_taken = now, self._taken
            return
        elapsed = now - self._paced_at
        if elapsed < PACE_MIN_S:
            return
        pace = (self._taken - self._paced_taken) / elapsed
        self.batch = max(self._first_batch, min(MAX_CLAIM, int(pace * self.ahead_s), 2 * self.batch))
        self._paced_at, self._paced_taken = now, self._taken

    def _refilled(self, done: asyncio.Future[bool]) -> None:
        if self._refilling is done:
            self._refilling = None
        if done.cancelled():
            self._drained = True
        elif done.exception() is not None:
            self._claim_error, self._drained = done.exception(), True
        elif not done.result():
            self._drained = True

    # life and cancel ---------------------------------------------------------------------------
    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            try:
                if self.store.beat(self.exp_id, self.worker_id) > self._cancel_seen:
                    self.cancel.set()  # cancelled from another process or dashboard replica
            except Exception:  # a busy or closed store: the next beat tries again
                pass

    def leave(self) -> int:
        """Stop beating and give back unfinished claims; returns how many other workers still work."""
        self._stop.set()
        self._thread.join(timeout=5)
        with self._lock:
            self._claimed.clear()
        return self.store.leave_run(self.exp_id, self.worker_id)
