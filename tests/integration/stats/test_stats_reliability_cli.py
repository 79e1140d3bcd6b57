"""pass^k, flip rates and flaky samples of a run with epochs, through the real CLI against a scripted
endpoint that answers the even sums wrong the first time it is asked, and every other answer right."""
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

from evalui.stats.reliability import epoch_icc
from support.openai_peer import ScriptedPeer, completion

TESTS = Path(__file__).resolve().parents[2]


def test_a_run_with_epochs_reports_pass_hat_k_and_tags_flaky_samples(tmp_path):
    asked: Counter = Counter()
    lock = threading.Lock()

    def even_sums_wrong_the_first_time(body, n):
        question = body["messages"][-1]["content"]
        a, b = (int(x) for x in question.removeprefix("What is ").rstrip("?").split(" + "))
        with lock:
            asked[question] += 1
            first = asked[question] == 1
        return completion(f"The answer is {a + b + 1 if first and (a + b) % 2 == 0 else a + b}")

    env = {**os.environ, "EVALUI_BENCHMARKS": "toy=toy_benchmark:BENCHMARK", "EVALUI_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    n, seed = 10, 4
    with ScriptedPeer(even_sums_wrong_the_first_time) as peer:
        done = subprocess.run([sys.executable, "-m", "evalui", "toy", "run", "--n", str(n), "--seed", str(seed),
                               "--exp-id", "reliable", "--epochs", "3", "--base-url", peer.base_url, "--model", "m",
                               "--concurrency", "1"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out_dir = Path(json.loads(done.stdout.strip().splitlines()[-1])["out_dir"])
    figures = json.loads((out_dir / "summary.json").read_text())["epochs"]
    even = {sample_id for sample_id, group, _ in samples(ToyOptions(n=n, seed=seed)) if group == "even"}
    assert 0 < len(even) < n  # both kinds are in the fixture
    # Even sums: right 2 times of 3 (flip rate 2/3, pass^3 0); odd sums: right every time.
    assert figures["flaky"] == pytest.approx({sample_id: 2 / 3 for sample_id in even})
    assert figures["pass_hat_k"]["3"] == pytest.approx((n - len(even)) / n)
    assert figures["pass_at_k"]["3"] == pytest.approx(1.0)
    assert figures["flip_rate"] == pytest.approx(len(even) / n * 2 / 3)
    ids = [sample_id for sample_id, _, _ in samples(ToyOptions(n=n, seed=seed))]
    assert figures["icc"] == pytest.approx(epoch_icc([2 if i in even else 3 for i in ids], 3))
