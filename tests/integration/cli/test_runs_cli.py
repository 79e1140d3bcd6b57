"""``evalui runs list | show | delete``: the Runs tab's operations on the command line, over a
stored GAIA run (the bundled sample, a scripted endpoint that gets some answers right)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from integration.benchmarks.gaia.test_gaia import ANSWERS
from support.openai_peer import ScriptedPeer, completion


def evalui(*args: str, env: dict) -> subprocess.CompletedProcess:
    # stdin is not a terminal here: a delete must then be confirmed with --yes.
    return subprocess.run([sys.executable, "-m", "evalui", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **env}, stdin=subprocess.DEVNULL)


def last_json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture()
def stored_run(tmp_path):
    def script(body, n):
        text = body["messages"][-1]["content"]
        text = text if isinstance(text, str) else text[0]["text"]
        return completion(next((f"FINAL ANSWER: {a}" for k, a in ANSWERS.items() if k in text), "I cannot tell."))

    env = {"EVALUI_DATA_DIR": str(tmp_path / "data")}
    with ScriptedPeer(script) as peer:
        summary = last_json(evalui("gaia", "run", "--sample", "--base-url", peer.base_url, "--model", "m",
                                   "--exp-id", "kept-run", env=env))
    return env, summary


def test_list_and_show_give_the_stored_counts_and_headline(stored_run):
    env, summary = stored_run
    listed = last_json(evalui("runs", "list", env=env))["runs"]
    assert [r["exp_id"] for r in listed] == ["kept-run"]
    run = listed[0]
    assert (run["benchmark"], run["status"], run["total"], run["done"], run["correct"]) == (
        "gaia", "finished", summary["total"], summary["total"], summary["correct"])
    assert run["headline"] == {"label": "accuracy", "value": summary["accuracy"]}
    assert last_json(evalui("runs", "list", "--benchmark", "bfcl", env=env))["runs"] == []
    shown = evalui("runs", "show", "kept-run", env=env)
    detail = last_json(shown)
    assert detail["out_dir"] == summary["out_dir"] and detail["summary"]["accuracy"] == summary["accuracy"]
    assert f"{summary['total']}/{summary['total']} judged" in shown.stdout


def test_delete_needs_a_confirmation_then_removes_the_run_and_its_folder(stored_run):
    env, summary = stored_run
    refused = evalui("runs", "delete", "kept-run", env=env)
    assert refused.returncode == 2 and "add --yes" in refused.stderr
    assert Path(summary["out_dir"]).is_dir()
    assert last_json(evalui("runs", "delete", "kept-run", "--yes", env=env)) == {"deleted": "kept-run"}
    assert not Path(summary["out_dir"]).exists()
    assert last_json(evalui("runs", "list", env=env))["runs"] == []
    gone = evalui("runs", "show", "kept-run", env=env)
    assert gone.returncode == 2 and "no stored run 'kept-run'" in gone.stderr
    unknown = evalui("runs", "delete", "nope", "--yes", env=env)
    assert unknown.returncode == 2 and "no run named 'nope'" in unknown.stderr
