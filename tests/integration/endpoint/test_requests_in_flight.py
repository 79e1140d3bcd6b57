"""The runner's Progress names the requests in flight (sample, seconds, the try it is on), and a run
that waits on slow answers says so in its log without any sample finishing."""

from __future__ import annotations

import re
import threading

from peers import Held, settings_for
from waiting import HANG_S, wait_for

from evalui.endpoint.client import ModelClient
from evalui.run import sample_run
from evalui.run.live import live_requests, live_state
from evalui.run.runner import run_experiment
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer, completion, error


class EchoTask:
    benchmark = "echo"

    def build_request(self, sample):
        return {"messages": [{"role": "user", "content": sample.payload["word"]}]}

    def call(self, client, sample, request):
        return client.chat(request["messages"])

    def judge(self, sample, response):
        return response["text"], response["text"] == "ok", {}



def test_requests_in_flight_with_their_try_reach_the_progress_and_the_log(tmp_path, monkeypatch):
    # The log names the requests in flight after this much quiet (10 s in a real run).
    monkeypatch.setattr(sample_run, "HEARTBEAT_S", 0.2)
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_or_get_experiment("watch-1", "echo", "m", "h", {})
    store.add_samples("watch-1", [(f"s{i}", "g", {"word": f"w{i}"}) for i in range(2)])
    asked: dict[str, int] = {}
    held = Held(completion("ok"))

    def script(body, n):
        word = body["messages"][0]["content"]
        asked[word] = asked.get(word, 0) + 1
        # Each sample's first try fails (a 500): its second is held until the test lets it go.
        return error(500, "busy") if asked[word] == 1 else held(body, n)

    events, outcome = [], {}
    with ScriptedPeer(script) as peer:
        client = ModelClient(settings_for(peer, max_retries=4, timeout_s=HANG_S))
        thread = threading.Thread(target=lambda: outcome.update(final=run_experiment(
            store, "watch-1", EchoTask(), client, concurrency=2, on_progress=events.append)), daemon=True)
        thread.start()
        try:
            requests = wait_for(lambda: (live := live_requests("watch-1")) and len(live.requests()) == 2
                                and all(r.attempt == 2 for r in live.requests()) and live.requests(),
                                "the two samples were never both on their second try")
            assert {r.sample_id for r in requests} == {"s0", "s1"}
            assert all(r.max_attempts == 5 and not r.waiting and r.elapsed_s >= 0 for r in requests)
            # No sample finished, yet the log says what the run waits for. It says it again at each
            # quiet heartbeat: a line from before both retries (one still on its first try) may come first.
            both_retried = r"2 in flight: s[01] \(\d+ s, try 2/5\), s[01] \(\d+ s, try 2/5\)"
            line = wait_for(lambda: next((e for e in events if re.fullmatch(both_retried, e.message)), None),
                            "the log never named both requests in flight on their second try")
            assert line.done == 0 and line.in_flight == 2
            assert {r.sample_id for r in line.requests} == {"s0", "s1"}
        finally:
            held.release()
            thread.join(HANG_S)
        client.close()
    assert not thread.is_alive()
    final = outcome["final"]
    assert final.done == 2 and final.correct == 2 and final.requests == () and final.in_flight == 0
    assert live_state("watch-1") is None  # forgotten once the run ends
    store.close()
