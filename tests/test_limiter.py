"""The process-wide endpoint limiter: runs against one endpoint share its concurrency and RPM, as the
scripted peer's recorded request times show; a run's own concurrency still caps that run."""

from __future__ import annotations

import threading
import time

import pytest
from peers import settings_for
from test_runner import EchoTask

from evalui.engine.client import ModelClient
from evalui.engine.limiter import endpoint_key, endpoint_limiter, join_endpoint
from evalui.engine.runner import run_experiment
from evalui.engine.store import RunStore
from evalui.testing.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.unit

DELAY_S = 0.2


def echo_after(delay_s: float):
    def script(body, n):
        reply = completion(body["messages"][0]["content"])
        reply.delay_s = delay_s
        return reply
    return script


def run_together(tmp_path, peer, runs: list[dict]) -> list:
    """Start every run at once, each with its own store, client and thread; wait for all."""
    results, threads = [None] * len(runs), []
    for index, run in enumerate(runs):
        store = RunStore(tmp_path / f"run{index}.sqlite")
        store.create_or_get_experiment("e", "echo", "m", "h", {})
        store.add_samples("e", [(f"{run['name']}{i}", "g", {"word": f"{run['name']}-{i}"}) for i in range(run["n"])])
        client = ModelClient(settings_for(peer))

        def target(index=index, store=store, client=client, run=run):
            results[index] = run_experiment(store, "e", EchoTask(), client, concurrency=run["concurrency"],
                                            requests_per_minute=run.get("rpm"))

        threads.append(threading.Thread(target=target))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def most_in_flight(times: list[float], delay_s: float) -> int:
    """Every response takes at least ``delay_s``: requests that arrived within less than that of
    each other were in flight together."""
    window = delay_s * 0.75
    return max(sum(1 for u in times if t - window < u <= t) for t in times)


def test_two_runs_against_one_endpoint_share_its_concurrency(tmp_path):
    with ScriptedPeer(echo_after(DELAY_S)) as peer:
        started = time.monotonic()
        results = run_together(tmp_path, peer, [{"name": "a", "n": 8, "concurrency": 4},
                                                 {"name": "b", "n": 8, "concurrency": 4}])
        took = time.monotonic() - started
        requests = peer.chat_requests()
    assert [r.done for r in results] == [8, 8] and [r.correct for r in results] == [8, 8]
    times = sorted(r.received_at for r in requests)
    assert most_in_flight(times, DELAY_S) == 4  # alone, each run would have had 4: together 8
    assert took >= 16 / 4 * DELAY_S * 0.9
    words = [r.body["messages"][0]["content"][0] for r in sorted(requests, key=lambda r: r.received_at)]
    # They ran at the same time: slots go first come, first served, so the run that started second
    # has its calls among the first eight, not after the other run's eight.
    assert "b" in words[:8] and "a" in words[:8], words


def test_a_runs_own_concurrency_still_caps_it(tmp_path):
    with ScriptedPeer(echo_after(DELAY_S)) as peer:
        run_together(tmp_path, peer, [{"name": "a", "n": 4, "concurrency": 1},
                                      {"name": "b", "n": 8, "concurrency": 4}])
        requests = peer.chat_requests()
    own = sorted(r.received_at for r in requests if r.body["messages"][0]["content"].startswith("a"))
    assert most_in_flight(own, DELAY_S) == 1
    assert most_in_flight(sorted(r.received_at for r in requests), DELAY_S) <= 4


def test_two_runs_share_the_endpoints_requests_per_minute(tmp_path):
    with ScriptedPeer(echo_after(0.0)) as peer:
        run_together(tmp_path, peer, [{"name": "a", "n": 3, "concurrency": 4, "rpm": 300},
                                      {"name": "b", "n": 3, "concurrency": 4, "rpm": 300}])
        times = sorted(r.received_at for r in peer.chat_requests())
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    assert len(times) == 6 and min(gaps) >= 0.2 * 0.8, gaps  # 300 a minute between them, not each


def test_a_call_waiting_for_a_slot_stops_on_cancel():
    lease = join_endpoint("http://limiter.test/v1", "m", concurrency=1)
    try:
        assert lease.acquire()
        cancel, outcome = threading.Event(), []
        waiter = threading.Thread(target=lambda: outcome.append(lease.acquire(cancel)))
        waiter.start()
        time.sleep(0.2)
        assert waiter.is_alive()  # the one slot is taken
        cancel.set()
        waiter.join(timeout=1)
        assert outcome == [False]
        lease.release()
        assert lease.acquire() and lease.try_acquire() is None
        lease.release()
    finally:
        lease.close()


def test_a_freed_slot_goes_to_the_call_that_waited_first():
    """A run whose call just ended must not take the freed slot ahead of another run's waiting call
    (before, it could, and the other run waited until the first had finished)."""
    lease = join_endpoint("http://fair.test/v1", "m", concurrency=1)
    limiter = endpoint_limiter("http://fair.test/v1", "m")
    try:
        assert lease.acquire()
        order: list[str] = []

        def wait_then_note(name):
            assert lease.acquire()
            order.append(name)
            lease.release()

        first = threading.Thread(target=wait_then_note, args=("waited first",))
        first.start()
        deadline = time.monotonic() + 5
        while limiter.waiting < 1:
            assert time.monotonic() < deadline, "the waiting call never queued"
            time.sleep(0.01)
        lease.release()
        assert lease.try_acquire() is None  # the loop's non-blocking path does not jump the queue
        wait_then_note("came back")  # the run that just released asks again at once
        first.join(timeout=5)
        assert order == ["waited first", "came back"]
    finally:
        lease.close()


def test_an_endpoint_is_one_key_however_typed_and_is_forgotten_when_idle():
    assert endpoint_key("HTTP://User:pw@Host:8000/v1/", "m") == endpoint_key("http://host:8000/v1?api-key=x", "m")
    assert "pw" not in repr(endpoint_key("http://user:pw@host/v1", "m"))
    lease = join_endpoint("http://forget.test/v1", "m", concurrency=3)
    limiter = endpoint_limiter("http://forget.test/v1", "m")
    assert limiter.concurrency == 3
    with join_endpoint("http://forget.test/v1", "m", concurrency=5):
        assert limiter.concurrency == 5  # the largest of the runs using it
    assert limiter.concurrency == 3
    lease.close()
    assert endpoint_limiter("http://forget.test/v1", "m") is not limiter
