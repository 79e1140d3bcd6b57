"""A worker on an event loop claims its next samples before the claimed ones run out, so its
coroutines never all wait for the store at once; what it claims ahead is visible to other
workers as claimed, and a store that fails under it stops the run with that error."""

from __future__ import annotations

import asyncio
import contextlib
import threading

import pytest

from evalui.run.claims import CLAIM_AHEAD_S, RunWorker
from evalui.store.run_store import RunStore


def _store_with(tmp_path, count: int) -> RunStore:
    store = RunStore(tmp_path / "evalui.sqlite")
    store.create_or_get_experiment("x", "echo", "m", "h", {})
    store.add_samples("x", [(f"s{i:02d}", "g", {}) for i in range(count)])
    return store


@contextlib.contextmanager
def _worker_on(tmp_path, count: int, batch: int):
    store = _store_with(tmp_path, count)
    worker = RunWorker(store, "x", threading.Event(), batch=batch)
    try:
        yield store, worker
    finally:
        worker.leave()
        store.close()


def _run(coroutine):
    """asyncio.run in a thread of its own: other tests (Playwright's sync API) may leave an event
    loop running in this one."""
    outcome: dict = {}

    def main() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as error:  # re-raised in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=main)
    thread.start()
    thread.join(60)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _claimed_by(store: RunStore, worker: RunWorker) -> int:
    return sum(1 for sample in store.samples("x") if sample.claimed_by == worker.worker_id)


def test_the_next_batch_is_claimed_before_the_claimed_samples_run_out(tmp_path):
    async def take_three_then_idle() -> list[str]:
        taken = [(await worker.take()).sample_id for _ in range(3)]
        for _ in range(200):  # the refill runs in a thread: give it time
            if _claimed_by(store, worker) > 4:
                break
            await asyncio.sleep(0.01)
        return taken

    with _worker_on(tmp_path, 12, batch=4) as (store, worker):
        taken = _run(take_three_then_idle())
        assert taken == ["s00", "s01", "s02"]
        # One sample of the first batch is left, and the second batch is already claimed.
        assert _claimed_by(store, worker) == 8


def test_a_loop_worker_takes_every_sample_once_then_none(tmp_path):
    async def drain(coroutines: int) -> list[str]:
        taken: list[str] = []

        async def one() -> None:
            while (sample := await worker.take()) is not None:
                taken.append(sample.sample_id)
                await asyncio.sleep(0)

        await asyncio.gather(*(one() for _ in range(coroutines)))
        return taken

    with _worker_on(tmp_path, 23, batch=4) as (store, worker):
        taken = _run(drain(6))
        assert sorted(taken) == [f"s{i:02d}" for i in range(23)]


def test_a_store_that_fails_under_a_loop_worker_raises_instead_of_ending_quietly(tmp_path):
    store = _store_with(tmp_path, 3)
    worker = RunWorker(store, "x", threading.Event(), batch=8)

    async def take_after_the_store_closed():
        worker._stop.set()  # no heartbeat on the closed store
        store.close()
        return await worker.take()

    with pytest.raises(Exception) as caught:
        _run(take_after_the_store_closed())
    assert "closed" in str(caught.value).lower()


def test_claims_hold_longer_when_the_workers_run_out_while_a_claim_waits(tmp_path):
    """A claim waits for the store's group commit under way; when the claimed samples ran out
    meanwhile, the worker's next claims hold twice as long of its workers' samples."""

    async def scenario() -> list[str]:
        taken = [(await worker.take()).sample_id]
        for _ in range(200):  # the claim ahead, started by that take, runs in a thread
            if _claimed_by(store, worker) >= 8:
                break
            await asyncio.sleep(0.01)
        # The writer's commit holds the store's lock: the next claim waits for it, as under load.
        store._lock.acquire()
        asyncio.get_running_loop().call_later(0.3, store._lock.release)
        while len(taken) < 12:
            taken.append((await worker.take()).sample_id)
        return taken

    with _worker_on(tmp_path, 40, batch=4) as (store, worker):
        taken = _run(scenario())
        assert taken == [f"s{i:02d}" for i in range(12)]
        assert worker.starved == 1 and worker.ahead_s == 2 * CLAIM_AHEAD_S
        assert 0.15 <= worker.wait_s <= 2.0  # about the 0.3 s the lock was held, counted once


def test_claims_follow_the_pace_and_the_workers_never_wait(tmp_path):
    async def take_all() -> list[str]:
        taken: list[str] = []
        while (sample := await worker.take()) is not None:
            taken.append(sample.sample_id)
            if len(taken) == 60:
                paced.append(worker.batch)
            await asyncio.sleep(0.005)  # at most 200 a second: a claim is always in time
        return taken

    paced: list[int] = []
    with _worker_on(tmp_path, 120, batch=4) as (store, worker):
        assert len(_run(take_all())) == 120
        assert worker.starved == 0 and worker.ahead_s == CLAIM_AHEAD_S
        # Half a second of samples at up to 200 a second: more than the first claim of 4, never
        # more than that pace allows (a slower machine claims fewer).
        assert 4 < paced[0] <= 100
        assert worker.wait_s < 0.1  # the first claim is not a wait; the last one finds nothing, quickly


def test_claimed_samples_are_the_runners_own_unless_written_since(tmp_path):
    """A worker given the samples the runner read takes a claimed one from there (no second read
    of its row), but reads again one that another worker wrote since the runner's read."""
    store = _store_with(tmp_path, 6)
    known = store.samples("x")
    store.record_error("x", "s02", request={"messages": []}, error="boom", attempts=1)  # another worker's write
    worker = RunWorker(store, "x", threading.Event(), batch=6, known=known)
    try:
        claimed = [next(worker) for _ in range(6)]
    finally:
        worker.leave()
        store.close()
    assert [s.sample_id for s in claimed] == [f"s{i:02d}" for i in range(6)]
    assert all(claimed[i] is known[i] for i in (0, 1, 3, 4, 5))
    assert claimed[2] is not known[2] and claimed[2].error == "boom" and known[2].error is None
    assert {s.claimed_by for s in claimed} == {worker.worker_id}
