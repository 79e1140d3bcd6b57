"""evalui asks what the leaderboard asks for the memory categories: evalui's requests equal those of
bfcl-eval's own OpenAI chat-completions handler, in FC and prompt mode.

bfcl's side is its ``OpenAICompletionsHandler.inference`` (its multi-turn loop, bfcl's own memory
backends, its memory instructions and snapshots), with its one SDK call replaced by the memory
oracle's reply; evalui's side is its agentic player and backends with ModelClient's request body,
fed the same replies. A sample: the notetaker scenario (its five prereq conversations, every one
compared, then three questions: gold, wrong, never stopping) on each memory backend. Web search,
which needs a web, is compared in tests/integration/benchmarks/bfcl/test_bfcl_request_parity_web.py.
"""

from __future__ import annotations

import pytest

from evalui.benchmarks.bfcl.agentic.data import load_agentic_category, prereq_chain
from support.bfcl_agentic_oracle import MemoryOracle, question_key
from support.bfcl_parity import AgenticSides, OfficialHandler

MEMORY = ("memory_kv", "memory_vector", "memory_rec_sum")
SCENARIO, QUESTIONS = "notetaker", 3


@pytest.mark.parametrize("mode", ["fc", "prompt"])
@pytest.mark.parametrize("category", MEMORY)
def test_memory_requests_equal_bfcl_handler(parity_client, tmp_path, category, mode):
    questions = [e.id for e in load_agentic_category(category) if SCENARIO in e.id][:QUESTIONS]
    keys = [question_key(i) for i in questions]
    oracle = MemoryOracle([category], wrong={keys[1]}, endless={keys[2]})
    sides = AgenticSides(OfficialHandler(mode), parity_client, tmp_path)
    problems = []
    for entry_id in questions:
        problems += sides.compare(category, entry_id, lambda body: oracle.reply(body).body)
    assert not problems, "\n".join(problems[:20])
    prereq_turns = sum(len(p.question) for p in prereq_chain(category, SCENARIO))
    assert sides.requests >= 2 * prereq_turns + 3 + 21  # a store call and a reply per turn; 21 never stopping
    # Both sides wrote the same memory: the scenario's final snapshot, byte for byte.
    final = [p.relative_to(sides.official_root) for p in sides.official_root.rglob(f"{SCENARIO}_final.json")]
    assert len(final) == 1
    assert (sides.evalui_root / final[0]).read_text() == (sides.official_root / final[0]).read_text()


@pytest.mark.parametrize("mode", ["fc", "prompt"])
@pytest.mark.parametrize("category", MEMORY)
def test_memory_with_bracketed_text_and_undefined_calls_equals_bfcl_handler(parity_client, tmp_path, category, mode):
    """Every prereq store holds words before brackets (bfcl's executor rewrites them inside the stored
    text, and later system prompts show that text) and comes with a call no backend defines."""
    questions = [e.id for e in load_agentic_category(category) if SCENARIO in e.id][:2]
    oracle = MemoryOracle([category], planted=True)
    sides = AgenticSides(OfficialHandler(mode), parity_client, tmp_path)
    problems = []
    for entry_id in questions:
        problems += sides.compare(category, entry_id, lambda body: oracle.reply(body).body)
    assert not problems, "\n".join(problems[:20])
    final = [p.relative_to(sides.official_root) for p in sides.official_root.rglob(f"{SCENARIO}_final.json")]
    written = (sides.evalui_root / final[0]).read_text()
    assert written == (sides.official_root / final[0]).read_text()
    assert "grinder (or" not in written
    if category != "memory_vector":  # the oracle's key-value store call does not fit vector's archival_memory_add
        assert "grinder(or any other) and f(y)" in written  # the rewrite reached the memory
