"""One way to start a run, for the CLI and the dashboard alike (evalui.run.run.prepare): the options
are checked, then the endpoint, and only then is anything registered; epochs and the budget are set
in the same call; the Run it returns executes, summarises and exports itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.endpoint.preflight import PreflightError
from evalui.run.run import Run, UnknownRun, prepare
from evalui.store.run_store import RunStore
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, error, is_probe


def evalui(*args: str, data: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalui", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "EVALUI_DATA_DIR": data, "OPENAI_API_KEY": "sk-test-1234567890"})


def stored_runs(data: str) -> list[str]:
    os.environ["EVALUI_DATA_DIR"] = data
    store = RunStore()
    try:
        return [e["exp_id"] for e in store.experiments()]
    finally:
        store.close()


def test_the_cli_refuses_a_refusing_endpoint_before_registering_anything(tmp_path, monkeypatch):
    data = str(tmp_path / "data")
    with ScriptedPeer(lambda body, n: error(401, "bad key"), probes="script") as peer:
        done = evalui("bfcl", "run", "--category", "simple_python", "--limit", "2", "--base-url", peer.base_url,
                      "--model", "m", "--exp-id", "dead", data=data)
        sent = [r.body for r in peer.chat_requests()]
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines == [f"evalui: error: HTTP 401 from {peer.base_url.split('/')[2]}: missing or wrong API key: bad key"]
    assert len(sent) == 1 and is_probe(sent[0])  # the check alone: no sample was asked
    assert "sk-test-1234567890" not in done.stderr
    monkeypatch.setenv("EVALUI_DATA_DIR", data)
    assert stored_runs(data) == []


def test_bad_options_are_refused_before_the_endpoint_is_asked(tmp_path):
    with ScriptedPeer(lambda body, n: error(500, "unused"), probes="script") as peer:
        done = evalui("bfcl", "run", "--category", "no_such_category", "--base-url", peer.base_url, "--model", "m",
                      data=str(tmp_path / "data"))
        assert peer.chat_requests() == []
    assert done.returncode == 2 and "no_such_category" in done.stderr


def test_the_check_is_one_tiny_request_and_no_check_skips_it(tmp_path):
    oracle = BfclOracle(["simple_python"])
    data = str(tmp_path / "data")
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        checked = evalui("bfcl", "run", "--category", "simple_python", "--limit", "2", "--base-url", peer.base_url,
                         "--model", "m", "--exp-id", "checked", data=data)
        probes_after_first = len(peer.probes)
        unchecked = evalui("bfcl", "run", "--category", "simple_python", "--limit", "2", "--base-url",
                           peer.base_url, "--model", "m", "--exp-id", "unchecked", "--no-check", data=data)
        probes_after_second = len(peer.probes)
    assert checked.returncode == 0 and unchecked.returncode == 0, checked.stderr + unchecked.stderr
    assert probes_after_first == 1 and probes_after_second == 1
    assert peer.probes[0].body["max_tokens"] == 1
    for done in (checked, unchecked):
        assert json.loads(done.stdout.splitlines()[-1])["correct"] == 2


def test_prepare_returns_a_run_that_executes_summarises_and_exports_itself(store):
    oracle = BfclOracle(["simple_python"])
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        settings = settings_for(peer)
        run = prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=3), settings, epochs=2,
                      exp_id="object")
        assert isinstance(run, Run) and run.exp_id == "object" and run.benchmark is BFCL
        assert len(store.samples("object")) == 6  # three samples, two epochs, set by prepare
        summary = run.execute(concurrency=2)
        assert len(peer.probes) == 1
    assert summary["correct"] == 6 and summary["epochs"]["epochs"] == 2
    again = Run.open(store, "object")
    assert again.summarise()["correct"] == 6 and again.options().categories == ["simple_python"]
    assert again.export()["correct"] == 6
    with pytest.raises(UnknownRun, match="no stored run 'nope'"):
        Run.open(store, "nope")


def test_a_dead_endpoint_raises_before_the_run_exists(store):
    with ScriptedPeer(lambda body, n: error(404, "no such route"), probes="script") as peer:
        settings = settings_for(peer)
        with pytest.raises(PreflightError, match="HTTP 404"):
            prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=1), settings, exp_id="never")
    assert store.experiment("never") is None
