"""The built-in GAIA tool agent against a scripted endpoint that really calls the tools."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from peers import SENTINEL_KEY

from support.openai_peer import (
    ScriptedPeer,
    completion,
    error,
    first_user_text,
    tool_outputs,
)


def printed(output: str) -> str:
    """What a program printed, from the python tool's result."""
    return output.split("stdout:\n", 1)[1].split("\nstderr:\n", 1)[0].strip()


def python_call(code: str):
    return completion("", tool_calls=[("python", json.dumps({"code": code}))], prompt_tokens=100, completion_tokens=30)


def write_questions(folder: Path, records: list[dict]) -> Path:
    path = folder / "questions.json"
    path.write_text(json.dumps(records))
    return path


def run_cli(*args, data_dir: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, "EVALUI_DATA_DIR": str(data_dir), "OPENAI_API_KEY": SENTINEL_KEY,
            "HF_TOKEN": "hf_sentinel_token_4411", **(env or {})}
    return subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", *args], capture_output=True, text=True,
                          timeout=300, env=full)


def store_rows(data_dir: Path, exp_id: str) -> dict:
    from evalui.store.run_store import RunStore  # a column may hold references to stored parts

    store = RunStore(data_dir / "evalui.sqlite")
    try:
        return {s.sample_id: {"stage": s.stage, "trajectory": s.trajectory, "error": s.error}
                for s in store.samples(exp_id)}
    finally:
        store.close()


NONCE = secrets.token_hex(8)
HIDDEN = hashlib.sha256(NONCE.encode()).hexdigest()[:16]


def agent_script(body, n):
    """A model that knows which program to write for each task and relays what the program printed."""
    question, outputs = first_user_text(body), tool_outputs(body)
    if "Compute the digest" in question:
        if not outputs:
            return python_call(f"import hashlib\nprint(hashlib.sha256({NONCE!r}.encode()).hexdigest()[:16])")
        return completion(f"The program printed it.\nFINAL ANSWER: {printed(outputs[-1])}")
    if "total price" in question:
        if not outputs:
            return python_call("import pandas as pd\nd = pd.read_csv('orders.csv')\nprint(int((d.units * d.price).sum()))")
        return completion(f"FINAL ANSWER: {printed(outputs[-1])}")
    if "environment" in question:
        if not outputs:
            return python_call("import os\nfor k, v in sorted(os.environ.items()): print(k, '=', v)")
        return completion(f"FINAL ANSWER: {' '.join(printed(outputs[-1]).split())}")
    if "forever" in question:
        if not outputs:
            return python_call("while True:\n    pass")
        return completion("It did not finish.\nFINAL ANSWER: stopped" if "stopped" in outputs[-1] else "FINAL ANSWER: ran")
    return completion("FINAL ANSWER: unknown")


def test_tool_agent_runs_code_reads_the_attachment_and_is_stopped_at_the_timeout(tmp_path):
    sample_csv = Path(__file__).resolve().parents[4] / "evalui" / "data" / "gaia_sample" / "2023" / "validation" / "orders.csv"
    (tmp_path / "orders.csv").write_bytes(sample_csv.read_bytes())
    questions = write_questions(tmp_path, [
        {"task_id": "digest", "Question": "Compute the digest of the nonce.", "Final answer": HIDDEN, "Level": 1},
        {"task_id": "loop", "Question": "Run this forever.", "Final answer": "stopped", "Level": 2},
        {"task_id": "price", "Question": "What is the total price of the order in the attached CSV file?",
         "Final answer": "525", "Level": 1, "file_name": "orders.csv"},
        {"task_id": "env", "Question": "Print the environment.", "Final answer": "none", "Level": 3},
    ])
    data = tmp_path / "data"
    with ScriptedPeer(agent_script) as peer:
        # Long enough for pandas to import on a busy machine; the runaway loop still ends at it.
        done = run_cli("--questions", str(questions), "--tools", "python,files", "--tool-timeout", "8",
                       "--base-url", peer.base_url, "--model", "m", "--exp-id", "agent", "--concurrency", "1",
                       "--price-input", "2.5", "--price-output", "10", data_dir=data)
        bodies = [r.body for r in peer.chat_requests()]
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["status"] == "finished" and summary["errors"] == 0
    assert summary["by_level"]["1"]["correct"] == 2  # the digest and the price: only running the code gives them
    assert summary["by_level"]["2"]["correct"] == 1  # the loop was stopped, the model told so, the run went on
    rows = store_rows(data, "agent")
    env_result = rows["env"]["trajectory"][0]["tool_results"][0]["content"]
    assert "PATH = /usr/local/bin:/usr/bin:/bin" in env_result
    for secret in (SENTINEL_KEY, "hf_sentinel_token_4411", "EVALUI_DATA_DIR", "OPENAI_API_KEY", str(data)):
        assert secret not in env_result
    loop_result = rows["loop"]["trajectory"][0]["tool_results"][0]
    assert loop_result["error"] == "timeout" and "stopped after 8 s" in loop_result["content"]
    # Native tool calls: the tools are offered, and each result goes back as a tool message.
    assert {t["function"]["name"] for t in bodies[0]["tools"]} == {"python", "files"}
    assert bodies[0]["messages"][0]["content"].startswith("You are a general AI assistant.")
    assert any(m["role"] == "tool" for b in bodies for m in b["messages"])

    # Every step is in the store and in the exported samples, with its tokens and latency.
    for _task_id, row in rows.items():
        steps = row["trajectory"]
        assert row["stage"] == "judged" and len(steps) == 2
        assert steps[0]["tool_calls"][0]["name"] == "python" and steps[0]["tool_results"][0]["name"] == "python"
        assert steps[1]["tool_calls"] == [] and "FINAL ANSWER" in steps[1]["text"]
        assert all(s["prompt_tokens"] > 0 and s["latency_s"] > 0 for s in steps)
        assert steps[1]["messages"][0]["role"] == "tool"  # what the second call added: the tool's result
    out = Path(summary["out_dir"])
    exported = {x["id"]: x for x in map(json.loads, (out / "samples.jsonl").read_text().splitlines())}
    assert {k: v["steps"] for k, v in exported.items()} == {"digest": 2, "loop": 2, "price": 2, "env": 2}
    assert exported["digest"]["trajectory"][0]["tool_results"][0]["content"].count(HIDDEN) == 1
    # Metrics: steps, tool errors (the loop), tokens and cost from the prices given.
    assert summary["steps_mean"] == 2 and summary["steps_median"] == 2
    assert summary["tool_calls"] == 4 and summary["tool_error_rate"] == 0.25
    assert summary["tokens_per_task"] == 160  # a tool call of 100 + 30 tokens and a final reply of 20 + 10
    assert summary["cost"]["usd"] == pytest.approx((4 * 120 * 2.5 + 4 * 40 * 10) / 1e6)
    report = (out / "report.md").read_text()
    assert "Model calls per task: mean 2.0" in report and "failed 1 (25.0%)" in report
    for artefact in out.iterdir():
        assert SENTINEL_KEY.encode() not in artefact.read_bytes()


def test_a_task_cut_off_mid_way_starts_again_and_finished_tasks_are_not_repeated(tmp_path):
    questions = write_questions(tmp_path, [
        {"task_id": "digest", "Question": "Compute the digest of the nonce.", "Final answer": HIDDEN},
        {"task_id": "flaky", "Question": "Compute the digest of the nonce, again.", "Final answer": HIDDEN},
    ])
    failing = {"on": True}

    def script(body, n):
        question = first_user_text(body)
        if "again" in question and tool_outputs(body) and failing["on"]:
            return error(500)  # the second call of this task fails: cut off mid-trajectory
        return agent_script(body, n)

    data = tmp_path / "data"
    with ScriptedPeer(script) as peer:
        args = ["--questions", str(questions), "--tools", "python", "--base-url", peer.base_url, "--model", "m",
                "--exp-id", "cut", "--max-retries", "0", "--concurrency", "1"]
        first = run_cli(*args, data_dir=data)
        summary = json.loads(first.stdout.splitlines()[-1])
        assert summary["status"] == "incomplete" and summary["errors"] == 1 and summary["correct"] == 1
        partial = store_rows(data, "cut")["flaky"]
        assert partial["stage"] == "init" and "server_error" in partial["error"]
        assert len(partial["trajectory"]) == 1  # the step taken before the failure is kept with the error
        asked_before = len(peer.chat_requests())
        failing["on"] = False
        second = run_cli(*args, data_dir=data)
        resumed = [r.body for r in peer.chat_requests()[asked_before:]]
    assert second.returncode == 0, second.stderr[-3000:]
    assert json.loads(second.stdout.splitlines()[-1])["correct"] == 2
    assert all("again" in first_user_text(b) for b in resumed)  # the finished task was never asked again
    assert len(resumed) == 2 and not tool_outputs(resumed[0])  # the cut task started from its first step
    assert len(store_rows(data, "cut")["flaky"]["trajectory"]) == 2


def test_python_is_off_on_a_space_unless_allowed_and_web_is_off_unless_configured(tmp_path):
    questions = write_questions(tmp_path, [{"Question": "Compute the digest of the nonce.", "Final answer": HIDDEN}])
    with ScriptedPeer(agent_script) as peer:
        space = {"SPACE_ID": "someone/evalui", "EVALUI_ALLOWED_HOSTS": peer.base_url.split("/")[2]}
        args = ["--questions", str(questions), "--tools", "python", "--base-url", peer.base_url, "--model", "m"]
        refused = run_cli(*args, data_dir=tmp_path, env=space)
        allowed = run_cli(*args, data_dir=tmp_path, env={**space, "EVALUI_ALLOW_CODE": "1"})
    assert refused.returncode == 2 and "EVALUI_ALLOW_CODE=1" in refused.stderr and "Traceback" not in refused.stderr
    assert allowed.returncode == 0, allowed.stderr[-2000:]
    assert json.loads(allowed.stdout.splitlines()[-1])["correct"] == 1
    web = run_cli("--sample", "--tools", "files,web", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                  data_dir=tmp_path)
    assert web.returncode == 2 and "EVALUI_WEB_BACKEND" in web.stderr
    unknown = run_cli("--sample", "--tools", "shell", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                      data_dir=tmp_path)
    assert unknown.returncode == 2 and "unknown tool 'shell'" in unknown.stderr
