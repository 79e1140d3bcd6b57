"""BFCL memory categories mixed with a single-turn one, against a scripted peer that stores the prereq
conversations and answers with gold answers, a wrong one and one that never stops calling: every
verdict equals `bfcl evaluate`'s on the exported files, in FC and prompt mode, the prereqs run once
per backend, and the leaderboard CSVs equal the official ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from bfcl_official_cli import bfcl_evaluate, official_errors, official_verdicts
from peers import settings_for

from evalui.benchmarks.bfcl.agentic.data import prereq_chain
from evalui.benchmarks.bfcl.leaderboard_csv import CSV_FILES
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.bfcl_agentic_oracle import MemoryOracle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

MEMORY = ["memory_kv", "memory_vector", "memory_rec_sum"]
CATEGORIES = ["simple_python", *MEMORY]
MODELS = {"fc": "gpt-4o-2024-11-20-FC", "prompt": "gpt-4o-2024-11-20"}  # registered, OpenAI-style
LIMIT = 5  # the first five questions: all of the customer scenario, which has ten prereq conversations


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_memory_verdicts_equal_bfcl_evaluate(store, tmp_path, mode):
    memory = MemoryOracle(MEMORY, wrong={"1-customer-1"}, endless={"2-customer-2"})
    single = BfclOracle(["simple_python"])
    assert not memory.ambiguous

    def script(body, n):
        return single.gold_reply(body) if single.entry_for(body) else memory.reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, model=MODELS[mode])
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=CATEGORIES, limit=LIMIT, mode=mode), settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=4)
        bodies = [r.body for r in peer.chat_requests()]
    assert summary["errors"] == 0 and summary["judged"] == LIMIT * len(CATEGORIES)
    stored = {s.sample_id: s for s in store.samples(exp_id)}
    for category in MEMORY:
        assert stored[f"{category}_0-customer-0"].correct
        assert stored[f"{category}_1-customer-1"].verdict["error_type"] == "answer_not_found"
        assert stored[f"{category}_2-customer-2"].verdict["error_type"] == "force_terminated"

    # Each backend's prereq chain was played once, not once per question.
    first_turn = prereq_chain("memory_kv", "customer")[0].question[0][0]["content"]
    openings = [b for b in bodies if b["messages"][-1].get("content") == first_turn]
    assert len(openings) == len(MEMORY)
    run = Path(summary["out_dir"])
    prereq_lines = (run / "BFCL_v4_memory_kv_prereq_result.json").read_text().splitlines()
    assert len(prereq_lines) == len(prereq_chain("memory_kv", "customer"))

    score_dir = bfcl_evaluate(tmp_path / "official", MODELS[mode], [Path(summary["result_files"][c]) for c in CATEGORIES])
    for category in CATEGORIES:
        ids = [i for i in stored if stored[i].group == category]
        assert official_verdicts(score_dir, category, ids) == {i: stored[i].correct for i in ids}, category
    for category in MEMORY:
        errors = official_errors(score_dir, category)
        for entry_id, error_type in errors.items():
            assert stored[entry_id].verdict["official_error_type"] == error_type
        assert errors[f"{category}_2-customer-2"] == "agentic:no_last_message"
    for name in CSV_FILES:
        assert (run / name).read_text() == (score_dir / name).read_text(), name
    assert summary["leaderboard"]["parts_run"] == ["non_live", "agentic"]
