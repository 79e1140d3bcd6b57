"""The shared run lifecycle: a changed selection on resume is adopted, a changed mode is refused,
concurrency is stored and reused, every summary has provenance, and --limit 0 means all."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from peers import SENTINEL_KEY, settings_for

from evalui.benchmarks.bfcl.data import bfcl_data_dir, load_category
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.run.lifecycle import ChangedRun
from evalui.store.run_store import RunStore
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer


@pytest.fixture(scope="module")
def oracle():
    return BfclOracle(["simple_python", "multiple", "live_relevance"])


def test_a_resume_with_a_larger_selection_adopts_it(store, oracle):
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=2, mode="fc"), settings)
        lifecycle.execute(store, exp_id, settings, concurrency=2)
        lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python", "multiple"], limit=3, mode="fc"),
                          settings, exp_id=exp_id)
        summary = lifecycle.execute(store, exp_id, settings)
        asked = Counter(oracle.entry_for(r.body).id for r in peer.chat_requests())
    assert max(asked.values()) == 1 and len(asked) == 6  # the two finished samples were not asked again
    config = store.experiment(exp_id)["config"]
    assert config["options"]["categories"] == ["simple_python", "multiple"] and config["options"]["limit"] == 3
    assert set(summary["by_category"]) == {"simple_python", "multiple"}
    for category in ("simple_python", "multiple"):
        lines = Path(summary["result_files"][category]).read_text().splitlines()
        assert len(lines) == 3


def test_a_resume_with_another_mode_is_refused_naming_it(store, oracle, tmp_path):
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=1, mode="fc"), settings)
        with pytest.raises(ChangedRun, match="mode='fc'.*mode='prompt'"):
            lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=1, mode="prompt"), settings,
                              exp_id=exp_id)
        done = subprocess.run(
            [sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python", "--limit", "1",
             "--mode", "prompt", "--base-url", peer.base_url, "--model", "m", "--exp-id", exp_id],
            env={**os.environ, "EVALUI_DATA_DIR": str(tmp_path / "data")}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "mode='fc'" in done.stderr and "Traceback" not in done.stderr


def test_concurrency_is_stored_and_reused_and_limit_zero_means_all(tmp_path, oracle):
    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path), "OPENAI_API_KEY": SENTINEL_KEY}
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        base = [sys.executable, "-m", "evalui", "bfcl", "run", "--category", "live_relevance", "--base-url",
                peer.base_url, "--model", "m", "--exp-id", "stored-1"]
        first = subprocess.run([*base, "--limit", "2", "--concurrency", "3", "--rpm", "6000"], env=env,
                               capture_output=True, text=True, timeout=300)
        assert first.returncode == 0, first.stderr
        second = subprocess.run([*base, "--limit", "0"], env=env, capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stderr
    summary = json.loads(second.stdout.strip().splitlines()[-1])
    assert summary["total"] == len(load_category("live_relevance")) == 16
    store = RunStore(tmp_path / "evalui.sqlite")
    config = store.experiment("stored-1")["config"]
    store.close()
    assert config["concurrency"] == 3 and config["requests_per_minute"] == 6000
    assert config["options"]["limit"] is None


def test_every_summary_has_provenance(store, oracle):
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=1, mode="prompt"),
                                   settings_for(peer))
        summary = lifecycle.execute(store, exp_id, settings_for(peer))
    written = json.loads((Path(summary["out_dir"]) / "summary.json").read_text())
    provenance = written["provenance"]
    assert provenance["evalui"] and provenance["python"].startswith("3.11")
    assert provenance["packages"] == {"bfcl-eval": "2026.3.23"}  # the spec's upstream_packages
    data_file = bfcl_data_dir() / "BFCL_v4_simple_python.json"
    expected = hashlib.sha256(data_file.read_bytes()).hexdigest()
    assert provenance["datasets"]["data/BFCL_v4_simple_python.json"] == f"sha256:{expected}"
    assert set(provenance["datasets"]) == {"data/BFCL_v4_simple_python.json",
                                           "possible_answer/BFCL_v4_simple_python.json"}
    assert written["headline"] == {"label": "accuracy", "value": written["accuracy"]}
