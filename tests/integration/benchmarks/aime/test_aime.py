"""AIME generation, judge and win rate against a scripted endpoint."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from aime_script import AimeScript
from unit.benchmarks.aime.test_aime import LATEX  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from support.openai_peer import ScriptedPeer, error


def run_cli(*args, env, timeout=300):
    return subprocess.run([sys.executable, "-m", "evalui", "aime", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "HF_HUB_OFFLINE": "1", **env})


def test_generate_retries_invalid_output_and_keeps_latex(tmp_path):
    script = AimeScript()
    with ScriptedPeer(script) as peer:
        done = run_cli("generate", "--n", "4", "--topics", "algebra,geometry", "--seed", "7", "--references",
                       "bundled", "--base-url", peer.base_url, "--model", "gen", "--out", str(tmp_path / "out"),
                       "--concurrency", "1", env={"EVALUI_DATA_DIR": str(tmp_path / "data")})
        requests = peer.chat_requests()
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["requested"] == 4 and summary["generated"] == 4 and summary["errors"] == 0
    assert summary["topics"] == {"algebra": 2, "geometry": 2}
    output = Path(summary["output"])
    assert output.parent == tmp_path / "out" and output.name.startswith("aime_generated_")
    problems = json.loads(output.read_text())
    assert len(problems) == 4
    assert {"problem_id", "problem", "answer", "solution", "topic", "metadata"} <= set(problems[0])
    for problem in problems:
        assert all(cmd in problem["problem"] for cmd in LATEX)
        assert 0 <= problem["answer"] <= 999
    assert len(requests) > 4  # malformed and out-of-range replies were asked again
    assert any("could not be used" in r.body["messages"][-1]["content"] for r in requests)
    report = (tmp_path / "out" / "generation_report.md").read_text()
    assert "## Topic distribution" in report


REFERENCE_COPY = ("Find the number of ordered pairs $(a,b)$ of positive integers such that $a+b=100$ and "
                  "$\\gcd(a,b)=1$.")
NEW_TEXT = "A frog hops along the integers from zero and never lands on a multiple of seven; count its paths."


@pytest.mark.parametrize("text, generated", [(REFERENCE_COPY, 0), (NEW_TEXT, 1)], ids=["copies-reference", "repeats-itself"])
def test_duplicates_are_rejected(tmp_path, text, generated):
    from support.openai_peer import completion

    reply = json.dumps({"problem": text, "answer": 40, "solution": "Count.", "topic": "number theory"})
    with ScriptedPeer(lambda body, n: completion(reply)) as peer:
        done = run_cli("generate", "--n", "2", "--references", "bundled", "--base-url", peer.base_url,
                       "--model", "gen", "--out", str(tmp_path), "--concurrency", "1", "--max-retries", "0",
                       env={"EVALUI_DATA_DIR": str(tmp_path / "data")})
    summary = json.loads(done.stdout.splitlines()[-1])
    # Duplicates are retried, then recorded as failures: never kept, never replaced by a placeholder.
    assert summary["generated"] == generated and summary["errors"] == 2 - generated
    assert len(json.loads(Path(summary["output"]).read_text())) == generated


def test_generation_resumes_after_failures(tmp_path):
    script = AimeScript()
    failing = {"on": True}

    def flaky(body, n):
        if failing["on"] and n % 3 == 0:
            return error(500)
        return script(body, n)

    env = {"EVALUI_DATA_DIR": str(tmp_path / "data")}
    with ScriptedPeer(flaky) as peer:
        args = ["generate", "--n", "6", "--references", "bundled", "--base-url", peer.base_url, "--model", "gen",
                "--out", str(tmp_path / "out"), "--exp-id", "gen-resume", "--max-retries", "0", "--concurrency", "1"]
        first = json.loads(run_cli(*args, env=env).stdout.splitlines()[-1])
        assert first["generated"] < 6 and first["errors"] > 0
        failing["on"] = False
        second = json.loads(run_cli(*args, env=env).stdout.splitlines()[-1])
    assert second["generated"] == 6 and second["output"] == first["output"]
    problems = json.loads(Path(second["output"]).read_text())
    assert len({p["problem"] for p in problems}) == 6


def generated_file(tmp_path) -> Path:
    script = AimeScript()
    with ScriptedPeer(script) as peer:
        done = run_cli("generate", "--n", "5", "--references", "bundled", "--base-url", peer.base_url,
                       "--model", "gen", "--out", str(tmp_path / "gen"), "--concurrency", "1",
                       env={"EVALUI_DATA_DIR": str(tmp_path / "data")})
    return Path(json.loads(done.stdout.splitlines()[-1])["output"])


def test_judge_records_parse_failures_instead_of_a_default_score(tmp_path):
    path = generated_file(tmp_path)
    victim = json.loads(path.read_text())[0]["problem"][:40]
    with ScriptedPeer(AimeScript(bad_judge_for=victim)) as peer:
        done = run_cli("judge", "--input", str(path), "--base-url", peer.base_url, "--model", "judge",
                       env={"EVALUI_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["judged"] == 4 and summary["failures"] == 1
    assert summary["average_score"] == pytest.approx(4.0)
    assert summary["pass_rate"] == 1.0 and summary["excellent_rate"] == 0.0
    assert summary["dimensions"]["correctness"] == 5.0
    data = json.loads(Path(summary["output"]).read_text())
    assert len(data["results"]) == 4 and all(r["total"] == 4.0 for r in data["results"])
    assert "## Per problem" in Path(summary["report"]).read_text()


@pytest.mark.parametrize("prefers, expected", [("generated", (1.0, 0.0, 0.0)), ("real", (0.0, 1.0, 0.0)),
                                               ("first", (0.0, 0.0, 1.0))])
def test_winrate_judges_both_orders_blind(tmp_path, prefers, expected):
    path = generated_file(tmp_path)
    with ScriptedPeer(AimeScript(prefers=prefers)) as peer:
        done = run_cli("winrate", "--input", str(path), "--real", "bundled", "--seed", "3", "--base-url",
                       peer.base_url, "--model", "judge", env={"EVALUI_DATA_DIR": str(tmp_path / "data")})
        bodies = [r.body for r in peer.chat_requests()]
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["pairs"] == 5
    assert (summary["win_rate"], summary["loss_rate"], summary["tie_rate"]) == expected
    assert summary["inconsistent_pairs"] == (5 if prefers == "first" else 0)
    assert len(bodies) == 10  # every pair in both orders
    for body in bodies:
        text = body["messages"][-1]["content"]
        assert "generated" not in text.lower() and "real" not in text.lower()  # blind


def test_evaluate_writes_the_comprehensive_report(tmp_path):
    with ScriptedPeer(AimeScript()) as peer:
        done = run_cli("evaluate", "--n", "3", "--references", "bundled", "--real", "bundled", "--base-url",
                       peer.base_url, "--model", "gen", "--judge-model", "judge", "--out", str(tmp_path / "out"),
                       env={"EVALUI_DATA_DIR": str(tmp_path / "data")})
        models = {r.body["model"] for r in peer.chat_requests()}
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["generation"]["generated"] == 3 and summary["judge"]["judged"] == 3
    assert summary["winrate"]["win_rate"] == 1.0
    assert models == {"gen", "judge"}
    report = Path(summary["report"]).read_text()
    for heading in ("## Basic information", "## Topic distribution", "## LLM judge", "## Win rate", "## Conclusion",
                    "## Next steps"):
        assert heading in report


def test_bad_input_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    done = run_cli("judge", "--input", str(bad), "--base-url", "http://127.0.0.1:9/v1", "--model", "j",
                   env={"EVALUI_DATA_DIR": str(tmp_path)})
    assert done.returncode == 2 and "expected a JSON array" in done.stderr and "Traceback" not in done.stderr
