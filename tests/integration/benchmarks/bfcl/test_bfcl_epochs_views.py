"""A multi-turn BFCL run with two epochs: every repeat is stored as ``<id>#e2``, and the turn view
(/bfcl_turns) and the viewer's gold answer find each repeat's entry (they raised KeyError, or showed
"any call" as the gold answer of every repeat)."""

from __future__ import annotations

from peers import settings_for

from evalui.benchmarks.bfcl.data import entries_by_id
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.benchmarks.bfcl.turns import stored_sample_turns
from evalui.run import lifecycle
from evalui.run.epochs import add_epochs
from evalui.viewer.inspector_data import gold_answer
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.openai_peer import ScriptedPeer

CATEGORY = "multi_turn_base"


def test_every_repeat_of_a_multi_turn_sample_opens_with_its_gold_calls(store):
    oracle = MultiTurnOracle([CATEGORY], limit=2)
    with ScriptedPeer(lambda body, n: oracle.reply(body)) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=2, mode="fc"), settings)
        assert add_epochs(store, exp_id, 2) == 2
        summary = lifecycle.execute(store, exp_id, settings)
    samples = store.samples(exp_id)
    assert summary["judged"] == 4 and {s.sample_id for s in samples} >= {f"{CATEGORY}_0#e2", f"{CATEGORY}_1#e2"}
    for sample in samples:
        own_id = sample.sample_id.split("#")[0]
        first_gold_call = entries_by_id(CATEGORY)[own_id].possible_answer[0][0]
        assert first_gold_call.split("(")[0] in gold_answer("bfcl", sample), sample.sample_id
        assert "any call" not in gold_answer("bfcl", sample)
        assert "no entry" not in stored_sample_turns(store, exp_id, sample.sample_id)
