"""A stored BFCL multi-turn run with a state mismatch, for the views' tests: two conversations of
multi_turn_base asked of a scripted model (a real HTTP peer) and judged by bfcl-eval's own checker.
Entry 0 is answered with the gold calls; entry 1 leaves turn 2's move out (so the file system's state
differs from the gold's after it) and replies with hostile HTML there (so its views show inert text)."""

from __future__ import annotations

from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.openai_peer import ScriptedPeer, completion

CATEGORY = "multi_turn_base"
HOSTILE_REPLY = "<img src=x onerror=alert(1)>done"


def seed_multi_turn_run(store, exp_id: str = "mt-view") -> str:
    """Runs the two conversations into ``store`` under ``exp_id``; returns it."""
    def drop_for_entry_1(entry, turn, calls):
        return calls[:-1] if entry.id.endswith("_1") and turn == 1 else calls

    oracle = MultiTurnOracle([CATEGORY], limit=2, perturb=drop_for_entry_1)

    def script(body, n):
        entry = oracle.entry_for(body)
        turn, step = oracle.position(body)
        if entry is not None and entry.id.endswith("_1") and turn == 1 and step == 1:
            return completion(HOSTILE_REPLY)
        return oracle.reply(body)

    with ScriptedPeer(script) as peer:
        lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=2, mode="fc"), settings_for(peer),
                          exp_id=exp_id)
        lifecycle.execute(store, exp_id, settings_for(peer), concurrency=2)
    return exp_id
