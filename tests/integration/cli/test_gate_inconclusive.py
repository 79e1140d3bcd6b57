"""The gate's three outcomes through the real CLI, on runs against a scripted endpoint: passed (0),
failed (100) and INCONCLUSIVE (101) when the accuracy's 95 % interval contains the --fail-under
threshold; --on-inconclusive; and the interval clustered by sample on a run with epochs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from toy_benchmark import ToyOptions, ask, samples

from evalui.cli.gate import GATE_FAILED, GATE_INCONCLUSIVE
from evalui.stats.metrics import wilson
from integration.cli.test_gate import SEED, N, always_right, wrong_and_broken
from support.openai_peer import ScriptedPeer, completion

TESTS = Path(__file__).resolve().parents[2]


def toy_answers(body, n):
    return completion(ask(body["messages"][-1]["content"]))


def passed_count(n: int, seed: int, broken: bool) -> int:
    totals = [p["a"] + p["b"] for _, _, p in samples(ToyOptions(n=n, seed=seed))]
    return sum(1 for t in totals if t % 10 != 7 and not (broken and t % 10 == 3))


@pytest.fixture()
def evalui(tmp_path):
    env = {**os.environ, "EVALUI_BENCHMARKS": "toy=toy_benchmark:BENCHMARK", "EVALUI_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("GITHUB_STEP_SUMMARY", None)

    def run(*args: str, peer, extra_env: dict | None = None) -> subprocess.CompletedProcess:
        endpoint = ["--base-url", peer.base_url, "--model", "m", "--max-retries", "0"]
        return subprocess.run([sys.executable, "-m", "evalui", "toy", "run", *args, *endpoint],
                              env={**env, **(extra_env or {})}, capture_output=True, text=True, timeout=300)

    return run


def gate_of(done: subprocess.CompletedProcess) -> dict:
    return json.loads(done.stdout.strip().splitlines()[-1])["gate"]


def test_passed_failed_and_inconclusive_through_the_cli(evalui, tmp_path):
    passed = passed_count(N, SEED, broken=True)
    interval = wilson(passed, N)
    accuracy = passed / N
    # The fixture's thresholds sit where the test says they do.
    above, inside_below, inside_above = interval.high + 0.05, (accuracy + interval.high) / 2, (interval.low + accuracy) / 2
    assert interval.high < above <= 1 and interval.low < inside_above < accuracy < inside_below < interval.high
    summary_file = tmp_path / "step_summary.md"
    with ScriptedPeer(always_right) as peer:
        clear_pass = evalui("--n", str(N), "--seed", str(SEED), "--exp-id", "right", "--fail-under", "80%", peer=peer)
    with ScriptedPeer(wrong_and_broken) as peer:
        clear_fail = evalui("--n", str(N), "--seed", str(SEED), "--exp-id", "low", "--fail-under", f"{above:.4f}",
                            peer=peer)
        below = evalui("--n", str(N), "--seed", str(SEED), "--exp-id", "low", "--fail-under", f"{inside_below:.4f}",
                       peer=peer, extra_env={"GITHUB_STEP_SUMMARY": str(summary_file)})
        over = evalui("--n", str(N), "--seed", str(SEED), "--exp-id", "low", "--fail-under", f"{inside_above:.4f}",
                      peer=peer)
        as_before = evalui("--n", str(N), "--seed", str(SEED), "--exp-id", "low", "--fail-under", f"{inside_below:.4f}",
                           "--on-inconclusive", "point", peer=peer)
        strict = evalui("--n", str(N), "--seed", str(SEED), "--exp-id", "low", "--fail-under", f"{inside_above:.4f}",
                        "--on-inconclusive", "fail", peer=peer)
        lenient = evalui("--n", str(N), "--seed", str(SEED), "--exp-id", "low", "--fail-under", f"{inside_above:.4f}",
                         "--on-inconclusive", "point", peer=peer)

    assert clear_pass.returncode == 0, clear_pass.stderr
    gate = gate_of(clear_pass)
    assert gate["outcome"] == "passed" and gate["passed"] and gate["figures"]["ci95"][0] > 0.8

    assert clear_fail.returncode == GATE_FAILED == 100, clear_fail.stderr
    gate = gate_of(clear_fail)
    assert gate["outcome"] == "failed" and not gate["passed"] and "below" in gate["reasons"][0]
    assert gate["figures"]["ci95"] == pytest.approx([interval.low, interval.high])
    assert "gate failed" in clear_fail.stderr

    for done in (below, over):  # the interval contains the threshold, whichever side the accuracy is on
        assert done.returncode == GATE_INCONCLUSIVE == 101, done.stderr
        gate = gate_of(done)
        assert gate["outcome"] == "inconclusive" and not gate["passed"]
        assert "contains the threshold" in gate["reasons"][0] and "gate inconclusive" in done.stderr
        assert gate["figures"]["accuracy"] == pytest.approx(accuracy)
        assert (Path(json.loads(done.stdout.strip().splitlines()[-1])["out_dir"]) / "summary.json").is_file()
    assert "⚠️ inconclusive" in summary_file.read_text() and "95% CI" in summary_file.read_text()

    assert as_before.returncode == GATE_FAILED and gate_of(as_before)["outcome"] == "failed"
    assert strict.returncode == GATE_FAILED and "contains the threshold" in gate_of(strict)["reasons"][0]
    assert lenient.returncode == 0 and gate_of(lenient)["outcome"] == "passed"


def test_a_run_with_epochs_is_gated_on_its_interval_clustered_by_sample(evalui):
    """Each sample answered the same way in all 3 epochs: 90 answers worth 30, so a threshold that
    Wilson over 90 answers would clear is inconclusive."""
    passed = passed_count(N, SEED, broken=False)
    naive = wilson(3 * passed, 3 * N)
    threshold = naive.low - 0.01
    assert passed / N > threshold
    with ScriptedPeer(toy_answers) as peer:
        done = evalui("--n", str(N), "--seed", str(SEED), "--exp-id", "epochs", "--epochs", "3",
                      "--fail-under", f"{threshold:.4f}", peer=peer)
    assert done.returncode == GATE_INCONCLUSIVE, done.stderr
    gate = gate_of(done)
    figures = gate["figures"]
    assert figures["considered"] == 3 * N and figures["clusters"] == N
    low, high = figures["ci95"]
    assert low < threshold < naive.low and high - low > 1.5 * (naive.high - naive.low)
    # The run's own summary (over judged answers: the same ones here) carries the same clustered interval.
    out_dir = Path(json.loads(done.stdout.strip().splitlines()[-1])["out_dir"])
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["clusters"] == N and summary["ci95"] == pytest.approx([low, high])
    assert summary["ci95_method"].startswith("wilson, effective n")
