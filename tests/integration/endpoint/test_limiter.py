"""The process-wide endpoint limiter: runs against one endpoint share its concurrency and RPM, as the
scripted peer sees them; a run's own concurrency still caps that run."""
from __future__ import annotations

import threading
import time
from collections import Counter

from peers import settings_for
from waiting import HANG_S

from evalui.endpoint.client import ModelClient
from evalui.endpoint.limiter import endpoint_limiter
from evalui.run.runner import run_experiment
from evalui.store.run_store import RunStore
from integration.run.test_runner import EchoTask
from support.openai_peer import ScriptedPeer, completion

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
