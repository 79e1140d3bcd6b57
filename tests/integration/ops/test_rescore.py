"""``evalui rescore``: stored replies judged again with no model call; an unchanged run changes no verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from integration.benchmarks.gaia.test_gaia import ANSWERS
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, completion, error


def evalui(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalui", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **env})


def verdicts(store, exp_id) -> dict:
    return {s.sample_id: (s.stage, bool(s.correct), (s.verdict or {}).get("error_type"), s.prediction)
            for s in store.samples(exp_id)}


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_rescoring_a_bfcl_run_changes_no_verdict_and_asks_nothing(store, tmp_path, mode):
    single = BfclOracle(["simple_python"])
    multi = MultiTurnOracle(["multi_turn_base"], limit=3)

    def script(body, n):
        entry = single.entry_for(body)
        if entry is not None:
            if entry.id.endswith(("_1", "_3")):
                return single.wrong_reply(body)
            if entry.id.endswith("_2"):
                return error(400, "scripted refusal")  # an endpoint error: nothing to judge again
            return single.gold_reply(body)
        return multi.reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python", "multi_turn_base"], limit=4,
                                                            mode=mode), settings, exp_id=f"rescore-{mode}")
        lifecycle.execute(store, exp_id, settings, concurrency=4)
        before = verdicts(store, exp_id)
        asked = len(peer.chat_requests())
        done = evalui("rescore", exp_id, env={"EVALUI_DATA_DIR": os.environ["EVALUI_DATA_DIR"]})
        assert len(peer.chat_requests()) == asked  # no model call
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["scorer"] == "bfcl_checker" and result["scorer_version"] == "bfcl-eval 2026.3.23"
    assert result["changed"] == 0 and result["rescored"] == 7  # 4 + 4 samples, less the endpoint error
    store.close()
    from evalui.store.run_store import RunStore

    again = RunStore()
    after = verdicts(again, exp_id)
    assert after == before
    assert sum(1 for _stage, correct, _t, _p in after.values() if not correct) >= 3  # wrong ones stay wrong
    judged = [s for s in again.samples(exp_id) if s.stage == "judged"]
    assert all(s.verdict["scorer"] == "bfcl_checker" and s.verdict["scorer_version"] == "bfcl-eval 2026.3.23"
               for s in judged)
    summary = json.loads(open(os.path.join(result["out_dir"], "summary.json")).read())  # written anew
    assert summary["correct"] == sum(1 for _s, c, _t, _p in before.values() if c)
    again.close()


def test_rescoring_a_gaia_run_changes_no_verdict(tmp_path):
    wrong = "largest population"

    def script(body, n):
        content = body["messages"][-1]["content"]
        text = content if isinstance(content, str) else content[0]["text"]
        if wrong in text:
            return completion("FINAL ANSWER: Lyon")
        for key, answer in ANSWERS.items():
            if key in text:
                return completion(f"FINAL ANSWER: {answer}")
        return completion("I cannot tell.")

    env = {"EVALUI_DATA_DIR": str(tmp_path / "data")}
    with ScriptedPeer(script) as peer:
        run = evalui("gaia", "run", "--sample", "--base-url", peer.base_url, "--model", "m", "--exp-id", "g1", env=env)
        assert run.returncode == 0, run.stderr[-2000:]
        first = json.loads(run.stdout.splitlines()[-1])
        asked = len(peer.chat_requests())
        done = evalui("rescore", "g1", "--scorer", "gaia_exact_match", env=env)
        assert len(peer.chat_requests()) == asked
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["changed"] == 0 and result["rescored"] == first["total"]
    assert result["accuracy"] == first["accuracy"] and first["correct"] < first["total"]
    records = [json.loads(line) for line in open(os.path.join(first["out_dir"], "samples.jsonl"))]
    assert all(r["verdict"]["scorer"] == "gaia_exact_match" for r in records)


def test_an_unknown_run_or_scorer_is_one_line(tmp_path):
    env = {"EVALUI_DATA_DIR": str(tmp_path / "data")}
    missing = evalui("rescore", "nope", env=env)
    assert missing.returncode == 2 and "no stored run 'nope'" in missing.stderr
    from evalui.core.registry import get

    with pytest.raises(ValueError, match="its scorers are bfcl_checker"):
        get("bfcl").scorer("nope")
