"""The CI gate of the run commands, through the real CLI against a scripted endpoint that answers
some sums wrong and fails others with HTTP 500: exit statuses 0, 100 and 2, JUnit counts, the
regression check against a baseline run, and the GitHub Actions step summary."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from toy_benchmark import ToyOptions, ask, samples

from support.openai_peer import ScriptedPeer, completion, error

TESTS = Path(__file__).resolve().parents[2]
N, SEED = 30, 3


def sums(question: str) -> int | None:
    numbers = re.findall(r"\d+", question)
    return int(numbers[0]) + int(numbers[1]) if len(numbers) >= 2 else None


def wrong_and_broken(body, n):
    """Right, except: sums ending in 7 are answered wrong (toy's ask), sums ending in 3 get HTTP 500."""
    question = body["messages"][-1]["content"]
    total = sums(question)
    if total is not None and total % 10 == 3:
        return error(500, "always broken")
    return completion(ask(question))


def always_right(body, n):
    total = sums(body["messages"][-1]["content"])
    return completion(f"The answer is {total}" if total is not None else "OK")


def expected_counts() -> dict:
    totals = [p["a"] + p["b"] for _, _, p in samples(ToyOptions(n=N, seed=SEED))]
    return {"errors": sum(1 for t in totals if t % 10 == 3), "failures": sum(1 for t in totals if t % 10 == 7),
            "passed": sum(1 for t in totals if t % 10 not in (3, 7))}


@pytest.fixture()
def evalui(tmp_path):
    env = {**os.environ, "EVALUI_BENCHMARKS": "toy=toy_benchmark:BENCHMARK", "EVALUI_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("GITHUB_STEP_SUMMARY", None)

    def run(*args: str, peer=None, extra_env: dict | None = None) -> subprocess.CompletedProcess:
        endpoint = ["--base-url", peer.base_url, "--model", "m", "--max-retries", "0"] if peer else []
        return subprocess.run([sys.executable, "-m", "evalui", *args, *endpoint], env={**env, **(extra_env or {})},
                              capture_output=True, text=True, timeout=300)

    return run


def last_json(done: subprocess.CompletedProcess) -> dict:
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_fail_under_and_junit_against_known_wrong_answers_and_errors(evalui, tmp_path):
    expected = expected_counts()
    assert expected["errors"] and expected["failures"]  # the fixture really has both
    accuracy = expected["passed"] / N
    junit = tmp_path / "results.xml"
    with ScriptedPeer(wrong_and_broken) as peer:
        failing = evalui("toy", "run", "--n", str(N), "--seed", str(SEED), "--exp-id", "gated",
                         "--fail-under", f"{accuracy + 0.01:.4f}", "--junit", str(junit),
                         "--on-inconclusive", "point", peer=peer)  # 30 samples cannot tell 1 point apart
        passing = evalui("toy", "run", "--n", str(N), "--seed", str(SEED), "--exp-id", "gated-2",
                         "--fail-under", f"{accuracy * 100 - 1:.2f}%", "--on-inconclusive", "point", peer=peer)
    assert failing.returncode == 100, failing.stderr
    assert "gate failed" in failing.stderr and "below" in failing.stderr
    summary = last_json(failing)
    gate = summary["gate"]
    assert not gate["passed"] and gate["figures"]["accuracy"] == pytest.approx(accuracy)
    # Errors never pass: the run's own accuracy (over judged samples) is higher than the gate's.
    assert summary["accuracy"] > gate["figures"]["accuracy"]
    assert (Path(summary["out_dir"]) / "summary.json").is_file()  # the exports were written first
    assert (Path(summary["out_dir"]) / "samples.jsonl").is_file()

    root = ElementTree.parse(junit).getroot()
    assert root.tag == "testsuites"
    assert (int(root.get("tests")), int(root.get("failures")), int(root.get("errors"))) == \
        (N, expected["failures"], expected["errors"])
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == N and len({c.get("name") for c in cases}) == N
    assert len([c for c in cases if c.find("failure") is not None]) == expected["failures"]
    errors = [c for c in cases if c.find("error") is not None]
    assert len(errors) == expected["errors"] and all(c.find("error").get("type") == "endpoint_error" for c in errors)
    assert sum(int(s.get("tests")) for s in root.findall("testsuite")) == N

    assert passing.returncode == 0, passing.stderr
    assert last_json(passing)["gate"]["passed"]


def test_bad_gate_flags_exit_2_before_anything_runs(evalui, tmp_path):
    with ScriptedPeer(always_right) as peer:
        base = ("toy", "run", "--n", "4", "--exp-id", "bad")
        outcomes = [evalui(*base, "--fail-under", "1.5", peer=peer), evalui(*base, "--fail-under", "most", peer=peer),
                    evalui(*base, "--junit", str(tmp_path / "missing" / "j.xml"), peer=peer),
                    evalui(*base, "--max-regression-vs", "no-such-run", peer=peer),
                    evalui("compare", "no-such-run", "other")]
        asked = len(peer.chat_requests())
    for done in outcomes:
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("evalui: error:") and "Traceback" not in done.stderr
    assert asked == 0 and not (tmp_path / "data" / "runs" / "bad").exists()


def test_max_regression_vs_fails_a_significantly_worse_run_and_passes_an_equal_one(evalui, tmp_path):
    summary_file = tmp_path / "step_summary.md"
    summary_file.write_text("earlier step\n")
    with ScriptedPeer(always_right) as peer:
        baseline = evalui("toy", "run", "--n", str(N), "--seed", str(SEED), "--exp-id", "baseline", peer=peer)
        same = evalui("toy", "run", "--n", str(N), "--seed", str(SEED), "--exp-id", "same",
                      "--max-regression-vs", "baseline", peer=peer)
    with ScriptedPeer(wrong_and_broken) as peer:
        worse = evalui("toy", "run", "--n", str(N), "--seed", str(SEED), "--exp-id", "worse",
                       "--max-regression-vs", "baseline", peer=peer,
                       extra_env={"GITHUB_STEP_SUMMARY": str(summary_file)})
    other_seed = evalui("toy", "run", "--n", "4", "--seed", "9", "--exp-id", "same", "--max-regression-vs", "same")
    assert baseline.returncode == 0 and same.returncode == 0, same.stderr
    assert last_json(same)["gate"]["regression"]["diff"] == 0
    assert worse.returncode == 100, worse.stderr
    regression = last_json(worse)["gate"]["regression"]
    expected = expected_counts()
    assert regression["flipped_to_wrong"] == expected["errors"] + expected["failures"]
    assert regression["diff"] < 0 and regression["mcnemar_p"] < 0.05
    assert other_seed.returncode == 2 and "its own baseline" in other_seed.stderr

    text = summary_file.read_text()
    assert text.startswith("earlier step\n")  # appended, never replaced
    assert "`worse`" in text and "failed" in text and "`baseline`" in text and "McNemar" in text


def test_compare_prints_paired_figures_as_its_last_line(evalui):
    with ScriptedPeer(always_right) as peer:
        evalui("toy", "run", "--n", str(N), "--seed", str(SEED), "--exp-id", "good", peer=peer)
    with ScriptedPeer(wrong_and_broken) as peer:
        evalui("toy", "run", "--n", str(N), "--seed", str(SEED), "--exp-id", "bad", peer=peer)
    done = evalui("compare", "good", "bad")
    assert done.returncode == 0, done.stderr
    record = last_json(done)
    expected = expected_counts()
    assert record["n"] == N and record["a_correct"] == N and record["b_correct"] == expected["passed"]
    assert record["flipped_to_wrong"] == N - expected["passed"] and record["flipped_to_correct"] == 0
    assert record["diff"] == pytest.approx(expected["passed"] / N - 1)
    low, high = record["diff_ci"]
    assert low < record["diff"] < high < 0
    assert record["mcnemar_p"] == pytest.approx(2 * 0.5 ** (N - expected["passed"]))
    assert "Newcombe" in record["interval_method"] and set(record["by_group"]) <= {"even", "odd"}
    flipped = {f["id"]: f["b"] for f in record["flipped"]["to_wrong"]}
    assert sorted(flipped.values()).count("error") == expected["errors"]
    assert "flipped to wrong" in done.stdout
