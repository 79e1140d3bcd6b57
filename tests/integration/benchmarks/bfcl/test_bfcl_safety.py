"""Hostile BFCL results are never executed, and benign arithmetic keeps the official verdict.

bfcl-eval's prompt decoder eval()s binary operations in arguments. These tests send the hostile
lines through every path that decodes (the scoring core in every category and shape, the CLI, a
prompt-mode run) and check that a marker file is never created and nothing is scored correct.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from bfcl_cases import gold_calls, prompt_text
from peers import settings_for
from unit.benchmarks.bfcl.test_bfcl_safety import hostile_lines  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer, completion


def test_cli_scores_a_hostile_file_without_running_it(tmp_path):
    marker = tmp_path / "ran"
    results = tmp_path / "BFCL_v4_simple_python_result.json"
    ids = [e.id for e in load_category("simple_python")]
    lines = hostile_lines(marker)
    results.write_text("".join(json.dumps({"id": ids[i], "result": text}) + "\n" for i, text in enumerate(lines)))
    out = tmp_path / "verdicts.jsonl"
    # A hang bound only (the command once took over a minute on a loaded machine); speed is in bench/.
    done = subprocess.run([sys.executable, "-m", "evalui", "bfcl", "score", "--category", "simple_python",
                           "--results", str(results), "--out", str(out)],
                          capture_output=True, text=True, timeout=600, env={**os.environ})
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["total"] == len(lines) and summary["correct"] == 0
    verdicts = [json.loads(line) for line in out.read_text().splitlines()]
    assert {v["error_type"] for v in verdicts} == {"unsafe_expression"}
    assert not marker.exists()


def test_prompt_mode_run_with_a_hostile_model_runs_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    marker = tmp_path / "ran"
    lines = hostile_lines(marker)
    store = RunStore()
    try:
        with ScriptedPeer(lambda body, n: completion(lines[n % len(lines)])) as peer:
            exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=len(lines),
                                                                mode="prompt"), settings_for(peer))
            summary = lifecycle.execute(store, exp_id, settings_for(peer), concurrency=3)
    finally:
        store.close()
    assert summary["judged"] == len(lines) and summary["correct"] == 0
    assert summary["error_types"] == {"unsafe_expression": len(lines)}
    assert not marker.exists()


def test_scoring_a_file_stops_at_its_time_budget(tmp_path):
    from evalui.benchmarks.bfcl.score_file import score_result_file
    from evalui.errors import InputError

    entries = load_category("simple_python")[:50]
    results = tmp_path / "results.json"
    results.write_text("".join(json.dumps({"id": e.id, "result": prompt_text(gold_calls(e.possible_answer))}) + "\n"
                               for e in entries))
    verdicts, summary = score_result_file(results, "simple_python", budget_s=3600)  # enough on any machine
    assert summary["total"] == 50 and summary["correct"] >= 48
    with pytest.raises(InputError, match="budget"):
        score_result_file(results, "simple_python", budget_s=1e-9)
