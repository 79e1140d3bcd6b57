"""A rescore judges stored replies with the benchmark's scorer alone: no task is built (so no call
worker, memory backend or client starts), and on an unchanged run no verdict changes. BFCL's three
kinds of sample (single-turn, multi-turn, agentic memory) in one run of two epochs, and GAIA."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
from evalui.ops.rescore import rescore
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from integration.benchmarks.gaia.test_gaia import answering_script
from support.bfcl_agentic_oracle import MemoryOracle
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer
from support.tripwires import no_task_built


def verdicts(store, exp_id) -> dict:
    return {s.sample_id: (s.stage, bool(s.correct), (s.verdict or {}).get("error_type"), s.prediction)
            for s in store.samples(exp_id)}


def test_a_bfcl_run_of_every_kind_and_two_epochs_is_rescored_without_a_task(store):
    single = BfclOracle(["simple_python"])
    multi = MultiTurnOracle(["multi_turn_base"], limit=2)
    memory = MemoryOracle(["memory_kv"], wrong={"1-customer-1"})

    def script(body, n):
        entry = single.entry_for(body)
        if entry is not None:
            return single.wrong_reply(body) if entry.id.endswith("_1") else single.gold_reply(body)
        return multi.reply(body) if multi.entry_for(body) is not None else memory.reply(body)

    categories = ["simple_python", "multi_turn_base", "memory_kv"]
    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, model="gpt-4o-2024-11-20-FC", max_retries=0)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=categories, limit=2), settings,
                                   exp_id="rescore-kinds")
        from evalui.run import epochs

        epochs.add_epochs(store, exp_id, 2)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=2)
        asked = len(peer.chat_requests())
        before = verdicts(store, exp_id)
        with no_task_built(BFCL):
            result = rescore(store, exp_id)
        assert len(peer.chat_requests()) == asked  # no model call
    assert summary["judged"] == 12 and summary["errors"] == 0
    assert {i.split("#")[0] for i in before} == {f"{c}_{k}" for c in ("simple_python", "multi_turn_base")
                                                 for k in (0, 1)} | {"memory_kv_0-customer-0",
                                                                     "memory_kv_1-customer-1"}
    assert any("#e2" in i for i in before)  # the second epoch is judged under its own row
    assert result["changed"] == 0 and result["rescored"] == 12
    assert verdicts(store, exp_id) == before
    wrong = {i for i, (_stage, correct, _t, _p) in before.items() if not correct}
    assert {i.split("#")[0] for i in wrong} == {"simple_python_1", "memory_kv_1-customer-1"}


def test_a_gaia_run_is_rescored_without_a_task(tmp_path, monkeypatch):
    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path / "data")}
    with ScriptedPeer(answering_script) as peer:
        run = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--sample", "--base-url", peer.base_url,
                              "--model", "m", "--exp-id", "g"], capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    first = json.loads(run.stdout.splitlines()[-1])
    monkeypatch.setenv("EVALUI_DATA_DIR", env["EVALUI_DATA_DIR"])
    store = RunStore()
    try:
        before = verdicts(store, "g")
        with no_task_built(GAIA):
            result = rescore(store, "g")
        assert result["changed"] == 0 and result["rescored"] == first["total"]
        assert verdicts(store, "g") == before
    finally:
        store.close()
