"""Adding a benchmark takes one package (tests/toy_benchmark) and one registry line; the toy one
then runs through the CLI and through its own tab in the browser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from toy_benchmark import ToyOptions, ask, samples

from support.openai_peer import ScriptedPeer, completion

TESTS = Path(__file__).resolve().parents[2]
REGISTRY_LINE = {"EVALUI_BENCHMARKS": "toy=toy_benchmark:BENCHMARK"}


def answering(body, n):
    return completion(ask(body["messages"][-1]["content"]))


def expected(n, seed=0):
    specs = samples(ToyOptions(n=n, seed=seed))
    return sum(1 for _, _, p in specs if (p["a"] + p["b"]) % 10 != 7)


def test_the_toy_benchmark_runs_through_the_cli(tmp_path):
    env = {**os.environ, **REGISTRY_LINE, "EVALUI_DATA_DIR": str(tmp_path),
           "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    with ScriptedPeer(answering) as peer:
        done = subprocess.run([sys.executable, "-m", "evalui", "toy", "run", "--n", "20", "--seed", "4",
                               "--base-url", peer.base_url, "--model", "m", "--exp-id", "toy-1"],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        summary = json.loads(done.stdout.strip().splitlines()[-1])
        assert summary["total"] == 20 and summary["correct"] == expected(20, 4)
        assert summary["headline"]["label"] == "accuracy"
        written = json.loads((Path(summary["out_dir"]) / "summary.json").read_text())
        assert set(written["by_parity"]) <= {"even", "odd"} and written["provenance"]["python"]
        refused = subprocess.run([sys.executable, "-m", "evalui", "toy", "run", "--n", "20", "--seed", "5",
                                  "--base-url", peer.base_url, "--model", "m", "--exp-id", "toy-1"],
                                 env=env, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "seed=4" in refused.stderr

