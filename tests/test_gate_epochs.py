"""--epochs K: each sample asked K times, mean accuracy with its standard error and pass@k; the
estimator against a brute-force count over subsets, and a run through the CLI."""

from __future__ import annotations

import itertools
import json
import os
import statistics
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from toy_benchmark import ToyOptions, samples

from evalui.stats.epochs import epoch_figures, epoch_id, pass_at_k, split_epoch
from evalui.testing.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.unit

TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize("attempts, correct, k", [(5, 0, 1), (5, 2, 1), (5, 2, 2), (5, 2, 4), (6, 5, 3), (4, 4, 4), (7, 3, 7)])
def test_pass_at_k_is_the_share_of_k_subsets_with_a_correct_answer(attempts, correct, k):
    answers = [True] * correct + [False] * (attempts - correct)
    subsets = list(itertools.combinations(range(attempts), k))
    expected = sum(any(answers[i] for i in subset) for subset in subsets) / len(subsets)
    assert pass_at_k(attempts, correct, k) == pytest.approx(expected)


def test_epoch_figures_mean_and_clustered_standard_error():
    outcomes = {"a": [True, True, False], "b": [False, False, False], "c": [True, True, True], "d": [True, False, False]}
    folded = [(epoch_id(s, k + 1), v) for s, values in outcomes.items() for k, v in enumerate(values)]
    assert split_epoch("a#e3") == ("a", 3) and split_epoch("a") == ("a", 1) and split_epoch("x#e2#e10") == ("x#e2", 10)
    figures = epoch_figures(folded, 3)
    per_sample = [sum(v) / 3 for v in outcomes.values()]
    assert figures["mean_accuracy"] == pytest.approx(statistics.mean(per_sample))
    assert figures["stderr"] == pytest.approx(statistics.stdev(per_sample) / 2)
    assert figures["pass_at_k"]["3"] == pytest.approx(3 / 4)  # every sample but b is right at least once
    assert figures["pass_at_k"]["1"] == pytest.approx(figures["mean_accuracy"])


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
