"""On the wire: bfcl-eval's own OpenAI chat-completions handler (through the OpenAI SDK, as
``bfcl generate`` runs it) and an evalui BFCL run send identical request bodies to a real endpoint.

Both talk to scripted endpoints on 127.0.0.1 that log every body and answer from the body alone
(support.bfcl_parity.ScriptedModel: gold calls, a rejected call, extra message fields, then
text), so both sides get the same replies. Taken: the first two entries of every single-turn and
multi-turn category, in FC and prompt mode; the whole sweep without HTTP is in
test_bfcl_request_parity.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES, MULTI_TURN_CATEGORIES
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.jsonl import iter_jsonl
from evalui.run import lifecycle
from support.bfcl_parity import (
    PARITY_MODEL,
    ByFirstTurn,
    OfficialHandler,
    first_difference,
)
from support.openai_peer import ScriptedPeer

PER_CATEGORY = 2


def official_over_http(script: ByFirstTurn, mode: str) -> tuple[dict[str, list[dict]], dict[str, object]]:
    with ScriptedPeer(script.reply) as peer:
        handler = OfficialHandler(mode, base_url=peer.base_url)
        results = {entry["id"]: handler.run(entry)[1] for _, entry in script.entries}
        return script.by_entry([r.body for r in peer.chat_requests()]), results


def evalui_over_http(store, script: ByFirstTurn, categories: list[str], mode: str) -> tuple[dict, dict]:
    with ScriptedPeer(script.reply) as peer:
        settings = settings_for(peer, model=PARITY_MODEL)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=categories, limit=PER_CATEGORY, mode=mode),
                                   settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=4)
        assert summary["errors"] == 0, summary
        # What was sent is stored with the run and shown in its report.
        endpoint = store.experiment(exp_id)["config"]["endpoint"]
        assert endpoint["temperature"] == 0.001 and endpoint["max_tokens"] is None
        report = Path(summary["report"]).read_text(encoding="utf-8")
        assert "Sent with every request: temperature 0.001, no max_tokens, store false" in report
        results = {}
        for path in summary["result_files"].values():
            results.update({line["id"]: line["result"] for _, line in iter_jsonl(path)})
        return script.by_entry([r.body for r in peer.chat_requests()]), results


@pytest.mark.parametrize("mode", ["fc", "prompt"])
@pytest.mark.parametrize("group", ["single_turn", "multi_turn"])
def test_wire_bodies_equal_bfcl_generate(store, group, mode):
    categories = list(CATEGORIES if group == "single_turn" else MULTI_TURN_CATEGORIES)
    problems = []
    for batch in ([categories] if group == "single_turn" else [[c] for c in categories]):
        script = ByFirstTurn(batch, mode, PER_CATEGORY)
        official, official_results = official_over_http(script, mode)
        ours, our_results = evalui_over_http(store, script, batch, mode)
        assert "?" not in official and "?" not in ours, "a request the script did not recognise"
        for _, entry in script.entries:
            expected, actual = official.get(entry["id"], []), ours.get(entry["id"], [])
            if not expected:
                problems.append(f"{entry['id']}: bfcl sent nothing")
            if len(expected) != len(actual):
                problems.append(f"{entry['id']}: bfcl sent {len(expected)} requests, evalui {len(actual)}")
            for index, (a, b) in enumerate(zip(expected, actual)):
                if a != b:
                    problems.append(f"{entry['id']} request {index + 1}: {first_difference(a, b)}")
                    break
            if official_results[entry["id"]] != our_results[entry["id"]]:
                problems.append(f"{entry['id']} result: bfcl {official_results[entry['id']]!r:.200} / "
                                f"evalui {our_results[entry['id']]!r:.200}")
    assert not problems, "\n".join(problems)
