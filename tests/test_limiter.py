"""The process-wide endpoint limiter: runs against one endpoint share its concurrency and RPM, as the
scripted peer sees them; a run's own concurrency still caps that run."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from peers import settings_for
from test_runner import EchoTask
from waiting import HANG_S, wait_for

from evalui.engine.client import ModelClient
from evalui.engine.limiter import endpoint_key, endpoint_limiter, join_endpoint
from evalui.engine.runner import run_experiment
from evalui.engine.store import RunStore
from evalui.testing.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.unit

DELAY_S = 0.2


class Gauge:
    """A script that echoes the word after ``delay_s`` and counts the requests it is answering at
    once, in all and per run (the word's first letter). It counts a request until just before its
    answer goes out, and the client frees its slot only once the answer is in: the peak here can
    never exceed what the client had in flight, however slow the machine."""

    def __init__(self, delay_s: float = DELAY_S, hold=None):
        self.delay_s, self.hold = delay_s, hold
        self._lock = threading.Lock()
        self.now: Counter = Counter()
        self.peak: Counter = Counter()

    def __call__(self, body, n):
        word = body["messages"][0]["content"]
        with self._lock:
            for key in ("all", word[0]):
                self.now[key] += 1
                self.peak[key] = max(self.peak[key], self.now[key])
        try:
            if self.hold:
                self.hold(self)
            time.sleep(self.delay_s)
        finally:
            with self._lock:
                self.now["all"] -= 1
                self.now[word[0]] -= 1
        return completion(word)


def run_together(tmp_path, peer, runs: list[dict], **settings) -> list:
    """Start every run at once, each with its own store, client and thread; wait for all."""
    results, threads = [None] * len(runs), []
    for index, run in enumerate(runs):
        store = RunStore(tmp_path / f"run{index}.sqlite")
        store.create_or_get_experiment("e", "echo", "m", "h", {})
        store.add_samples("e", [(f"{run['name']}{i}", "g", {"word": f"{run['name']}-{i}"}) for i in range(run["n"])])
        client = ModelClient(settings_for(peer, **settings))

        def target(index=index, store=store, client=client, run=run):
            results[index] = run_experiment(store, "e", EchoTask(), client, concurrency=run["concurrency"],
                                            requests_per_minute=run.get("rpm"))

        threads.append(threading.Thread(target=target, daemon=True))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_S)
        assert not thread.is_alive(), f"a run still went after {HANG_S:g} s"
    return results


def test_two_runs_against_one_endpoint_share_its_concurrency(tmp_path):
    released = threading.Event()

    def first_wave(gauge):
        # Alone, each run would have 4 in flight: together they get 4. The first answers wait until
        # all 4 slots are taken and the other run's calls queue behind them (or 60 s pass), so the
        # order below does not depend on how soon the second thread started.
        deadline = time.monotonic() + 60
        while not released.is_set() and time.monotonic() < deadline:
            if gauge.peak["all"] >= 4 and endpoint_limiter(peer.base_url, "scripted-model").waiting >= 4:
                released.set()
            time.sleep(0.01)
        released.set()

    with ScriptedPeer(Gauge(hold=first_wave)) as peer:
        results = run_together(tmp_path, peer, [{"name": "a", "n": 8, "concurrency": 4},
                                                 {"name": "b", "n": 8, "concurrency": 4}], timeout_s=300)
        requests = peer.chat_requests()
    assert [r.done for r in results] == [8, 8] and [r.correct for r in results] == [8, 8]
    assert peer.script.peak["all"] == 4 and len(requests) == 16
    words = [r.body["messages"][0]["content"][0] for r in sorted(requests, key=lambda r: r.number)]
    # Slots go first come, first served: the run whose calls waited has its calls among the first
    # eight, not after the other run's eight.
    assert "b" in words[:8] and "a" in words[:8], words


def test_a_runs_own_concurrency_still_caps_it(tmp_path):
    with ScriptedPeer(Gauge()) as peer:
        results = run_together(tmp_path, peer, [{"name": "a", "n": 4, "concurrency": 1},
                                                {"name": "b", "n": 8, "concurrency": 4}])
    assert [r.done for r in results] == [4, 8]
    assert peer.script.peak["a"] == 1 and peer.script.peak["all"] <= 4


def test_two_runs_share_the_endpoints_requests_per_minute(tmp_path):
    # 120 a minute between them: a start every 0.5 s. Each with its own 120 a minute, the runs'
    # requests would come in pairs (gaps near 0); a gap under 0.25 s would need the peer to see one
    # request a quarter of a second late and the next on time.
    with ScriptedPeer(lambda body, n: completion(body["messages"][0]["content"])) as peer:
        run_together(tmp_path, peer, [{"name": "a", "n": 2, "concurrency": 4, "rpm": 120},
                                      {"name": "b", "n": 2, "concurrency": 4, "rpm": 120}])
        times = sorted(r.received_at for r in peer.chat_requests())
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    assert len(times) == 4 and min(gaps) >= 0.25, gaps


def test_a_call_waiting_for_a_slot_stops_on_cancel():
    lease = join_endpoint("http://limiter.test/v1", "m", concurrency=1)
    limiter = endpoint_limiter("http://limiter.test/v1", "m")
    try:
        assert lease.acquire()
        cancel, outcome = threading.Event(), []
        waiter = threading.Thread(target=lambda: outcome.append(lease.acquire(cancel)), daemon=True)
        waiter.start()
        wait_for(lambda: limiter.waiting or not waiter.is_alive(), "the second call neither waited nor ended")
        assert waiter.is_alive() and outcome == []  # the one slot is taken: it waits
        cancel.set()
        waiter.join(HANG_S)
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
        wait_for(lambda: limiter.waiting >= 1, "the waiting call never queued")
        lease.release()
        assert lease.try_acquire() is None  # the loop's non-blocking path does not jump the queue
        wait_then_note("came back")  # the run that just released asks again at once
        first.join(HANG_S)
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
