"""--epochs K: each sample asked K times, mean accuracy with its standard error and pass@k; the
estimator against a brute-force count over subsets, and a run through the CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from toy_benchmark import ToyOptions, samples

from support.openai_peer import ScriptedPeer, completion

TESTS = Path(__file__).resolve().parents[2]


def test_the_cli_asks_each_sample_k_times_and_reports_the_figures(tmp_path):
    asked: Counter = Counter()
    lock = threading.Lock()

    def wrong_the_first_time(body, n):
        question = body["messages"][-1]["content"]
        a, b = (int(x) for x in question.removeprefix("What is ").rstrip("?").split(" + "))
        with lock:
            asked[question] += 1
            first = asked[question] == 1
        return completion(f"The answer is {a + b + 1 if first else a + b}")

    env = {**os.environ, "EVALUI_BENCHMARKS": "toy=toy_benchmark:BENCHMARK", "EVALUI_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    n = 8
    with ScriptedPeer(wrong_the_first_time) as peer:
        def run(*extra):
            return subprocess.run([sys.executable, "-m", "evalui", "toy", "run", "--n", str(n), "--seed", "2",
                                   "--exp-id", "epochs", "--base-url", peer.base_url, "--model", "m", "--concurrency", "1",
                                   *extra], env=env, capture_output=True, text=True, timeout=300)

        done = run("--epochs", "3", "--junit", str(tmp_path / "j.xml"))
        again = run()  # a resume keeps the run's epochs and asks nothing more
        changed = run("--epochs", "2")
        requests = len(peer.chat_requests())
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    questions = {f"What is {p['a']} + {p['b']}?" for _, _, p in samples(ToyOptions(n=n, seed=2))}
    assert set(asked) == questions and requests == 3 * len(questions)
    assert summary["total"] == 3 * n
    figures = summary["epochs"]
    assert figures["epochs"] == 3 and figures["samples"] == n
    assert figures["mean_accuracy"] == pytest.approx(2 / 3) and figures["stderr"] == pytest.approx(0.0)
    assert figures["pass_at_k"] == pytest.approx({"1": 2 / 3, "3": 1.0})
    assert (tmp_path / "j.xml").read_text().count("<testcase ") == 3 * n
    assert again.returncode == 0 and json.loads(again.stdout.strip().splitlines()[-1])["epochs"]["epochs"] == 3
    assert changed.returncode == 2 and "3 epochs" in changed.stderr
