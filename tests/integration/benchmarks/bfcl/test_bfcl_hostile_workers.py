"""A multi-turn sample that keeps its call worker busy: 161 legal mkdir/cp calls build a tree of 2^40
nodes in bfcl's file system (``cp`` shares contents), and every ``du()`` then runs to the call limit.
Such a sample stops with ``too_slow`` once its calls have used their budget, it does not hold the
call workers of another run, and cancelling its run stops its workers at once."""

from __future__ import annotations

import json
import threading

from peers import settings_for
from waiting import HANG_S, wait_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.openai_peer import ScriptedPeer, completion

CATEGORY = "multi_turn_base"  # its first entries all hold GorillaFileSystem
ROUNDS = 40


def doubling_calls() -> list[tuple[str, str]]:
    """d{k+1} holds d{k} and a copy of it that shares its contents: 2^ROUNDS nodes, 4 calls a round."""
    calls = [("mkdir", {"dir_name": "d0"})]
    for k in range(ROUNDS):
        calls += [("cp", {"source": f"d{k}", "destination": f"e{k}"}), ("mkdir", {"dir_name": f"d{k + 1}"}),
                  ("cp", {"source": f"d{k}", "destination": f"d{k + 1}"}),
                  ("cp", {"source": f"e{k}", "destination": f"d{k + 1}"})]
    return [(name, json.dumps(arguments)) for name, arguments in calls]


def timed_out(message: dict) -> bool:
    return message.get("role") == "tool" and "past its" in str(message.get("content"))


class Hostile:
    """The doubling calls over the first four steps, then one ``du()`` a step, for ever."""

    def __init__(self):
        self.calls = doubling_calls()
        self.timeouts = 0  # du() results that came back as a stopped call
        self.lock = threading.Lock()

    def __call__(self, body, n):
        messages = body["messages"]
        step = sum(1 for m in messages if m.get("role") == "assistant")
        if messages and timed_out(messages[-1]):
            with self.lock:
                self.timeouts += 1
        if step < 4:
            size = -(-len(self.calls) // 4)
            return completion(None, self.calls[step * size:(step + 1) * size])
        return completion(None, [("du", json.dumps({"human_readable": False}))])


def test_a_sample_whose_calls_keep_timing_out_stops_too_slow(store, monkeypatch):
    monkeypatch.setenv("EVALUI_CALL_SECONDS", "1")
    monkeypatch.setenv("EVALUI_SAMPLE_CALL_SECONDS", "2.5")
    hostile = Hostile()
    with ScriptedPeer(hostile) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=1, mode="fc"), settings,
                                   exp_id="too-slow")
        summary = lifecycle.execute(store, exp_id, settings)
        requests = len(peer.chat_requests())
    assert summary["total"] == 1 and summary["errors"] == 0
    sample = store.samples(exp_id)[0]
    assert sample.verdict["error_type"] == "too_slow" and not sample.correct
    results = [r for step in sample.trajectory for r in step["tool_results"]]
    assert results[-1]["error"] == "too_slow" and "too_slow" in results[-1]["content"]
    # Three du() calls use up 2.5 s at a 1 s limit; the conversation ends there, not at the step limit.
    assert sum(r["error"] == "call_timeout" for r in results) <= 3
    assert requests <= 8, requests


def test_a_hostile_run_does_not_hold_another_runs_workers_and_its_cancel_stops_it(store, monkeypatch):
    monkeypatch.setenv("EVALUI_SAMPLE_CALL_SECONDS", "600")  # the hostile samples keep going until cancelled
    hostile, cancel = Hostile(), threading.Event()
    outcome = {}
    with ScriptedPeer(hostile) as hostile_peer:
        hostile_settings = settings_for(hostile_peer)
        hostile_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=2, mode="fc"),
                                       hostile_settings, exp_id="hostile")

        def run_hostile():
            outcome["summary"] = lifecycle.execute(store, hostile_id, hostile_settings, concurrency=2, cancel=cancel)

        thread = threading.Thread(target=run_hostile, daemon=True)
        thread.start()
        # Both hostile samples are in their du() phase: each of the run's two workers is busy to its deadline.
        wait_for(lambda: hostile.timeouts >= 2, "the hostile samples never reached a stopped du()")

        oracle = MultiTurnOracle([CATEGORY], limit=3)
        with ScriptedPeer(lambda body, n: oracle.reply(body)) as peer:
            settings = settings_for(peer)
            benign_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=3, mode="fc"),
                                          settings, exp_id="benign")
            before = hostile.timeouts
            benign = lifecycle.execute(store, benign_id, settings, concurrency=3)
            during = hostile.timeouts - before
        assert thread.is_alive(), "the hostile run ended by itself"
        cancel.set()
        thread.join(HANG_S)
        assert not thread.is_alive(), f"the hostile run still went {HANG_S:g} s after its cancel"
    assert benign["total"] == 3 and benign["errors"] == 0 and benign["correct"] == 3
    # The benign run's calls never queued behind a du(): it ended within a couple of the hostile
    # workers' 5 s deadlines. On shared workers each of its ~30 calls waited for one.
    assert during <= 6, during
    assert outcome["summary"]["status"] in ("cancelled", "stopped", "interrupted"), outcome["summary"].get("status")
