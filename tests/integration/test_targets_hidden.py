"""Only scorers see a sample's target: no request to the model, and nothing handed to an agent,
carries the gold answer. (AIME has no target hidden from a model: its judge is the scorer, and is
shown the answer it grades.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, completion

TARGET = "ZQX-9931-TARGET"


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_bfcl_requests_never_carry_the_possible_answer(store, mode):
    single_categories = ["simple_python", "live_multiple", "simple_javascript"]
    single = BfclOracle(single_categories)
    multi = MultiTurnOracle(["multi_turn_base"], limit=3)

    def script(body, n):
        return single.gold_reply(body) if single.entry_for(body) is not None else multi.reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[*single_categories, "multi_turn_base"],
                                                            limit=3, mode=mode), settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=4)
        bodies = [json.dumps(r.body, ensure_ascii=False) for r in peer.chat_requests()]
    assert summary["total"] == 12 and summary["correct"] >= 10  # gold answers, so the run really ran
    assert not any("possible_answer" in b or "ground_truth" in b for b in bodies)
    entries = [e for c in single_categories for e in load_category(c)[:3]]
    for entry in entries:
        gold = json.dumps(entry.possible_answer, ensure_ascii=False)
        assert not any(gold in b for b in bodies), entry.id
    # A conversation's gold calls are never shown before the model makes them: its first request.
    for entry in load_category("multi_turn_base")[:3]:
        first = next(b for b in bodies if json.dumps(entry.question[0][0]["content"], ensure_ascii=False)[1:-1] in b)
        for call in (c for turn in entry.possible_answer for c in turn):
            assert json.dumps(call, ensure_ascii=False)[1:-1] not in first, (entry.id, call)


def _questions(tmp_path):
    path = tmp_path / "questions.json"
    path.write_text(json.dumps([
        {"task_id": "t1", "Question": "What is the code name of the project?", "Final answer": TARGET, "Level": 1,
         "Annotator Metadata": {"Steps": f"1. Look it up: the answer is {TARGET}.", "Number of steps": "1"}},
        {"task_id": "t2", "Question": "Name the colour of the sky.", "Final answer": "blue", "Level": 1},
    ]))
    return path


@pytest.mark.parametrize("tools", [None, "python,files"])
def test_gaia_requests_never_carry_the_final_answer(tmp_path, tools):
    def script(body, n):
        return completion("FINAL ANSWER: blue")

    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path / "data")}
    with ScriptedPeer(script) as peer:
        command = [sys.executable, "-m", "evalui", "gaia", "run", "--questions", str(_questions(tmp_path)),
                   "--base-url", peer.base_url, "--model", "m"] + (["--tools", tools] if tools else [])
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
        bodies = [json.dumps(r.body, ensure_ascii=False) for r in peer.chat_requests()]
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["total"] == 2 and summary["correct"] == 1  # judged against the answers the model never saw
    assert bodies and not any(TARGET in b for b in bodies)


def test_a_gaia_agent_module_never_receives_the_final_answer(tmp_path):
    (tmp_path / "peeking_agent.py").write_text(
        "import json\n"
        "class PeekingAgent:\n"
        "    def answer(self, record):\n"
        "        with open('seen.jsonl', 'a') as out:\n"
        "            out.write(json.dumps(record, default=str) + '\\n')\n"
        "        return 'blue'\n")
    done = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--questions", str(_questions(tmp_path)),
                           "--agent", "peeking_agent:PeekingAgent"], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={**os.environ, "EVALUI_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 0, done.stderr[-2000:]
    seen = (tmp_path / "seen.jsonl").read_text()
    assert seen.count("\n") == 2 and "What is the code name" in seen
    assert TARGET not in seen and "Final answer" not in seen and "Annotator Metadata" not in seen
