"""A memory conversation that asks rec_sum to grow its memory a hundredfold per call
(``memory_update("a" * 10000)`` then ``memory_replace("a", "a" * 10000)``, 100 MB in one call
upstream): the call is not run, the conversation stops with ``too_large``, the run ends, and no
snapshot holds more than evalui's cap."""

from __future__ import annotations

import json
from pathlib import Path

from peers import settings_for

from evalui.benchmarks.bfcl.agentic.backends import MAX_MEMORY_CHARS
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.openai_peer import ScriptedPeer, completion

CATEGORY = "memory_rec_sum"


def amplifying(body, n):
    last = body["messages"][-1]
    if last.get("role") == "user":
        return completion(None, [("memory_update", json.dumps({"text": "a" * 10_000}))])
    if last.get("role") == "tool" and "updated" in str(last.get("content")).lower():
        return completion(None, [("memory_replace", json.dumps({"old_text": "a", "new_text": "a" * 10_000}))])
    return completion("done")


def test_a_memory_that_would_grow_past_the_cap_stops_the_conversation(store):
    with ScriptedPeer(amplifying) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=1, mode="fc"), settings)
        summary = lifecycle.execute(store, exp_id, settings)
    assert summary["judged"] == 1 and summary["errors"] == 0
    sample = store.samples(exp_id)[0]
    assert sample.verdict["error_type"] == "too_large" and not sample.correct
    results = [r for step in sample.trajectory for r in step["tool_results"]]
    assert [r["error"] for r in results] == ["", "too_large"], results
    assert f"{MAX_MEMORY_CHARS:,} characters" in results[-1]["content"]
    # The prereq conversations stopped the same way: every snapshot they wrote is small.
    snapshots = [p for p in Path(summary["out_dir"]).rglob("*.json") if "memory_snapshot" in p.parts]
    assert snapshots and max(p.stat().st_size for p in snapshots) < 2 * MAX_MEMORY_CHARS


def test_memory_backends_live_in_the_runs_call_workers_not_the_server(store, monkeypatch):
    from evalui.benchmarks.bfcl.agentic.backends import memory_class

    made_here = []
    cls = memory_class(CATEGORY)
    original = cls.__init__

    def recording(self, *args, **kwargs):
        made_here.append(type(self).__name__)
        original(self, *args, **kwargs)

    monkeypatch.setattr(cls, "__init__", recording)
    with ScriptedPeer(amplifying) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=1, mode="fc"), settings)
        summary = lifecycle.execute(store, exp_id, settings)
    assert summary["judged"] == 1
    assert made_here == []  # every instance (prereqs and the question) was built in a worker process
