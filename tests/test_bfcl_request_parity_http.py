"""On the wire: bfcl-eval's own OpenAI chat-completions handler (through the OpenAI SDK, as
``bfcl generate`` runs it) and an evalui BFCL run send identical request bodies to a real endpoint.

Both talk to scripted endpoints on 127.0.0.1 that log every body and answer from the body alone
(evalui.testing.bfcl_parity.ScriptedModel: gold calls, a rejected call, extra message fields, then
text), so both sides get the same replies. Taken: the first two entries of every single-turn and
multi-turn category, in FC and prompt mode; the whole sweep without HTTP is in
test_bfcl_request_parity.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.request import official_entries
from evalui.benchmarks.bfcl.run import execute_bfcl_run, prepare_bfcl_run
from evalui.jsonl import iter_jsonl
from evalui.scoring.bfcl import CATEGORIES, MULTI_TURN_CATEGORIES
from evalui.testing.bfcl_parity import (
    PARITY_MODEL,
    OfficialHandler,
    ScriptedModel,
    completion_body,
    first_difference,
    gold_of_cached,
)
from evalui.testing.openai_peer import Reply, ScriptedPeer

pytestmark = pytest.mark.unit

PER_CATEGORY = 2


class ByFirstTurn:
    """The script of each sampled entry, found by the first request's messages, which every later
    request of the conversation starts with (bfcl's own first request, built in process)."""

    def __init__(self, categories: list[str], mode: str):
        self.scripts: dict[str, tuple[str, object]] = {}
        self.entries: list[tuple[str, dict]] = []
        builder = OfficialHandler(mode)
        for category in categories:
            for entry in list(official_entries(category).values())[:PER_CATEGORY]:
                script = ScriptedModel(entry, category, mode, gold_of_cached(category).get(entry["id"]))
                first, _ = builder.run(entry, lambda body: completion_body({"role": "assistant", "content": "ok"}))
                key = self.key(first[0]["messages"], len(first[0]["messages"]))
                assert key not in self.scripts, f"{entry['id']} starts like {self.scripts[key][0]}"
                self.scripts[key] = (entry["id"], script)
                self.entries.append((category, entry))
        self.lengths = sorted({json.loads(k)[0] for k in self.scripts})

    @staticmethod
    def key(messages: list[dict], length: int) -> str:
        return json.dumps([length, messages[:length]], sort_keys=True)

    def find(self, body: dict) -> tuple[str, object] | None:
        for length in self.lengths:
            found = self.scripts.get(self.key(body.get("messages") or [], length))
            if found:
                return found
        return None

    def reply(self, body: dict, number: int) -> Reply:
        found = self.find(body)
        if found is None:
            return Reply(status=400, body={"error": {"message": "no sampled entry starts like this request"}})
        return Reply(body=found[1].reply(body))

    def bodies_by_entry(self, peer) -> dict[str, list[dict]]:
        grouped: dict[str, list[dict]] = {}
        for request in peer.chat_requests():
            found = self.find(request.body)
            grouped.setdefault(found[0] if found else "?", []).append(request.body)
        return grouped


def official_over_http(script: ByFirstTurn, mode: str) -> tuple[dict[str, list[dict]], dict[str, object]]:
    with ScriptedPeer(script.reply) as peer:
        handler = OfficialHandler(mode, base_url=peer.base_url)
        results = {entry["id"]: handler.run(entry)[1] for _, entry in script.entries}
        return script.bodies_by_entry(peer), results


def evalui_over_http(store, script: ByFirstTurn, categories: list[str], mode: str) -> tuple[dict, dict]:
    with ScriptedPeer(script.reply) as peer:
        settings = settings_for(peer, model=PARITY_MODEL)
        exp_id = prepare_bfcl_run(store, settings, categories, limit=PER_CATEGORY, mode=mode)
        summary = execute_bfcl_run(store, settings, exp_id, concurrency=4)
        assert summary["errors"] == 0, summary
        # What was sent is stored with the run and shown in its report.
        endpoint = store.experiment(exp_id)["config"]["endpoint"]
        assert endpoint["temperature"] == 0.001 and endpoint["max_tokens"] is None
        report = Path(summary["report"]).read_text(encoding="utf-8")
        assert "Sent with every request: temperature 0.001, no max_tokens, store false" in report
        results = {}
        for path in summary["result_files"].values():
            results.update({line["id"]: line["result"] for _, line in iter_jsonl(path)})
        return script.bodies_by_entry(peer), results


@pytest.mark.parametrize("mode", ["fc", "prompt"])
@pytest.mark.parametrize("group", ["single_turn", "multi_turn"])
def test_wire_bodies_equal_bfcl_generate(store, group, mode):
    categories = list(CATEGORIES if group == "single_turn" else MULTI_TURN_CATEGORIES)
    problems = []
    for batch in ([categories] if group == "single_turn" else [[c] for c in categories]):
        script = ByFirstTurn(batch, mode)
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
