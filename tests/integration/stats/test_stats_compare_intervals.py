"""`evalui compare` gives each run's accuracy its 95 % interval, clustered by sample on runs with
epochs (the same interval the run summary has), and the comparison's Markdown shows it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from toy_benchmark import ask

from evalui.reports.comparison import comparison_markdown
from evalui.stats.clustered import clustered_accuracy
from support.openai_peer import ScriptedPeer, completion

TESTS = Path(__file__).resolve().parents[2]
N, SEED, EPOCHS = 20, 3, 2


def test_compare_gives_each_run_a_clustered_interval(tmp_path):
    env = {**os.environ, "EVALUI_BENCHMARKS": "toy=toy_benchmark:BENCHMARK", "EVALUI_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("GITHUB_STEP_SUMMARY", None)

    def evalui(*args, peer=None):
        endpoint = ["--base-url", peer.base_url, "--model", "m"] if peer else []
        return subprocess.run([sys.executable, "-m", "evalui", *args, *endpoint], env=env, capture_output=True,
                              text=True, timeout=300)

    with ScriptedPeer(lambda body, n: completion(ask(body["messages"][-1]["content"]))) as peer:
        first = evalui("toy", "run", "--n", str(N), "--seed", str(SEED), "--epochs", str(EPOCHS), "--exp-id", "a",
                       peer=peer)
        second = evalui("toy", "run", "--n", str(N), "--seed", str(SEED), "--epochs", str(EPOCHS), "--exp-id", "b",
                        peer=peer)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    done = evalui("compare", "a", "b")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["n"] == N * EPOCHS and record["a_correct"] == record["b_correct"]
    summary = json.loads((Path(json.loads(first.stdout.strip().splitlines()[-1])["out_dir"]) / "summary.json").read_text())
    assert record["a_ci95"] == pytest.approx(summary["ci95"]) and record["b_ci95"] == pytest.approx(summary["ci95"])
    # Each sample answered alike in both epochs: N clusters, so wider than Wilson over N·EPOCHS answers.
    passed = record["a_correct"] // EPOCHS
    expected = clustered_accuracy([(f"s{i}", i < passed) for i in range(N) for _ in range(EPOCHS)])
    assert record["a_ci95"] == pytest.approx([expected.low, expected.high])
    text = comparison_markdown(record)
    assert f"(95% CI {expected.low * 100:.1f}%–{expected.high * 100:.1f}%)" in text
