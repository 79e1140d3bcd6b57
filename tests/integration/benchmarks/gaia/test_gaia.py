"""GAIA loading (four sources, both metadata layouts), runs with attachments and agents, exports."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from fake_hub import FakeHub, folder_files
from peers import SENTINEL_KEY
from unit.benchmarks.gaia.test_gaia import tasks, write_layout  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from evalui.benchmarks.gaia import data
from support.openai_peer import ScriptedPeer, completion, error

SAMPLE = data.BUNDLED_SAMPLE / "2023" / "validation"
ANSWERS = {"chemical symbol": "Au", "units were ordered": "10", "planets": "Mercury, Venus, Earth",
           "colour": "red", "largest population": "Marseille", "total price": "$525", "spreadsheet": "42"}


def run_in_subprocess(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_hf_download_through_huggingface_hub(tmp_path):
    files = folder_files(SAMPLE, "2023/validation")
    with FakeHub(data.HF_REPO, files) as hub:
        done = run_in_subprocess(
            "from evalui.benchmarks.gaia.data import load_hf; qs = load_hf('validation', level='2');"
            "print([q.task_id for q in qs], all(q.file_path for q in qs))",
            {"HF_ENDPOINT": hub.url, "HF_TOKEN": "hf_test", "EVALUI_DATA_DIR": str(tmp_path)},
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "['evalui-sample-0003', 'evalui-sample-0004'] True"
    assert (tmp_path / "cache" / "gaia" / "2023" / "validation" / "metadata.jsonl").is_file()


def test_gated_repo_without_access_says_so(tmp_path):
    with FakeHub(data.HF_REPO, gated=True) as hub:
        done = subprocess.run(
            [sys.executable, "-m", "evalui", "gaia", "run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "HF_ENDPOINT": hub.url, "HF_TOKEN": "hf_test", "EVALUI_DATA_DIR": str(tmp_path)})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "no access to the gated dataset gaia-benchmark/GAIA" in done.stderr


def test_no_token_says_so(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")}
    done = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--base-url", "http://127.0.0.1:9/v1",
                           "--model", "m"], capture_output=True, text=True, timeout=120,
                          env={**env, "EVALUI_DATA_DIR": str(tmp_path)})
    assert done.returncode == 2 and "set HF_TOKEN" in done.stderr and "Traceback" not in done.stderr


def answering_script(body, n):
    content = body["messages"][-1]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    for key, answer in ANSWERS.items():
        if key in text:
            return completion(f"Let me think.\nFINAL ANSWER: [YOUR FINAL ANSWER]\n...\nFINAL ANSWER: {answer}")
    return completion("I cannot tell.")


def test_run_with_attachments_against_the_scripted_endpoint(tmp_path):
    xlsx_dir = tmp_path / "xlsx"
    folder = write_layout(xlsx_dir, tasks([("Read the spreadsheet: what is the total?", 1, "42", "book.xlsx")]), parquet=False)
    pd.DataFrame({"value": [40, 2]}).to_excel(folder / "book.xlsx", index=False)
    env = {"EVALUI_DATA_DIR": str(tmp_path / "data"), "OPENAI_API_KEY": SENTINEL_KEY}
    with ScriptedPeer(answering_script) as peer:
        sample = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--sample", "--base-url", peer.base_url,
                                 "--model", "m", "--exp-id", "gaia-sample"], capture_output=True, text=True,
                                timeout=300, env={**os.environ, **env})
        spreadsheet = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--data-dir", str(xlsx_dir),
                                      "--base-url", peer.base_url, "--model", "m"], capture_output=True, text=True,
                                     timeout=300, env={**os.environ, **env})
        bodies = [r.body for r in peer.chat_requests()]
    assert sample.returncode == 0, sample.stderr[-2000:]
    summary = json.loads(sample.stdout.splitlines()[-1])
    assert summary["total"] == 6 and summary["correct"] == 6
    assert summary["by_level"]["3"] == {"total": 2, "correct": 2, "accuracy": 1.0}
    assert set(summary) >= {"exp_id", "total", "correct", "accuracy", "by_level", "duration_s", "out_dir", "submission"}
    assert all(b["messages"][0]["content"].startswith("You are a general AI assistant.") for b in bodies)
    user_turns = [b["messages"][1]["content"] for b in bodies]
    assert any(isinstance(c, str) and "lamp,3,20" in c for c in user_turns)  # CSV inlined
    images = [c for c in user_turns if isinstance(c, list)]
    assert len(images) == 1 and images[0][1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert spreadsheet.returncode == 0, spreadsheet.stderr[-2000:]
    assert any(isinstance(c, str) and "40" in c and "Sheet" in c for c in user_turns)
    assert json.loads(spreadsheet.stdout.splitlines()[-1])["correct"] == 1

    lines = [json.loads(x) for x in Path(summary["submission"]).read_text().splitlines()]
    assert [set(x) for x in lines] == [{"task_id", "model_answer", "reasoning_trace"}] * 6
    planets = next(x for x in lines if x["task_id"] == "evalui-sample-0003")
    assert planets["model_answer"] == "Mercury, Venus, Earth"  # never sorted
    out = Path(summary["out_dir"])
    guide = (out / "SUBMISSION_GUIDE.md").read_text()
    assert "in order" in guide and "do not sort" in guide and "Validation answers are public" in guide
    report = (out / "report.md").read_text()
    assert "## Accuracy per level" in report and "Latency: median" in report
    for artefact in out.iterdir():
        assert SENTINEL_KEY.encode() not in artefact.read_bytes()


def test_wrong_and_lenient_answers_and_resume(tmp_path):
    wrong = {"planets": "Earth, Venus, Mercury", "largest population": "the Marseille"}

    def script(body, n):
        content = body["messages"][-1]["content"]
        text = content if isinstance(content, str) else content[0]["text"]
        for key, answer in wrong.items():
            if key in text:
                return completion(f"FINAL ANSWER: {answer}")
        if "total price" in text:
            return error(500)
        return answering_script(body, n)

    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path)}
    with ScriptedPeer(script) as peer:
        command = [sys.executable, "-m", "evalui", "gaia", "run", "--sample", "--base-url", peer.base_url,
                   "--model", "m", "--exp-id", "lenient", "--max-retries", "0"]
        first = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
        summary = json.loads(first.stdout.splitlines()[-1])
        assert summary["errors"] == 1 and summary["correct"] == 3 and summary["status"] == "incomplete"
        assert summary["lenient_accuracy"] == pytest.approx(5 / 5)
        asked = len(peer.chat_requests())
        again = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
        assert len(peer.chat_requests()) == asked + 1  # only the failed task is asked again
        assert json.loads(again.stdout.splitlines()[-1])["errors"] == 1  # and it failed again


def test_user_agent_module(tmp_path):
    (tmp_path / "my_agent.py").write_text(
        "class MyAgent:\n"
        "    def answer(self, record):\n"
        "        if 'gold' in record['question']:\n"
        "            return 'Au'\n"
        "        if record.get('file_path') and record['file_path'].endswith('.csv'):\n"
        "            return '10'\n"
        "        raise RuntimeError('tool crashed')\n"
    )
    done = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--sample", "--level", "1",
                           "--agent", "my_agent:MyAgent"], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, "EVALUI_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["total"] == 2 and summary["correct"] == 2
    bad = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--sample", "--agent", "my_agent:Nope"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path,
                         env={**os.environ, "EVALUI_DATA_DIR": str(tmp_path / "data")})
    assert bad.returncode == 2 and "has no attribute 'Nope'" in bad.stderr


def test_text_only_endpoint_gets_the_image_named_instead(tmp_path):
    def text_only(body, n):
        content = body["messages"][-1]["content"]
        if isinstance(content, list):
            return error(400, "image content is not supported by this model")
        return answering_script(body, n)

    with ScriptedPeer(text_only) as peer:
        done = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--sample", "--level", "2",
                               "--base-url", peer.base_url, "--model", "m"], capture_output=True, text=True,
                              timeout=300, env={**os.environ, "EVALUI_DATA_DIR": str(tmp_path)})
        contents = [r.body["messages"][-1]["content"] for r in peer.chat_requests()]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["errors"] == 0 and summary["total"] == 2
    assert any(isinstance(c, str) and "Attached file: red_square.png" in c for c in contents)


def test_limit_zero_runs_every_task_and_epochs_ask_each_task_again(tmp_path):
    """--limit 0 is all tasks; --epochs 2 asks each twice. The model is right the first time it
    sees a question and wrong the second, so the mean is 1/2 while pass@2 counts every task."""
    seen: dict[str, int] = {}

    def script(body, n):
        content = body["messages"][-1]["content"]
        text = content if isinstance(content, str) else content[0]["text"]
        seen[text] = seen.get(text, 0) + 1
        return answering_script(body, n) if seen[text] == 1 else completion("FINAL ANSWER: certainly not this")

    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path)}
    with ScriptedPeer(script) as peer:
        done = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--sample", "--limit", "0", "--epochs", "2",
                               "--base-url", peer.base_url, "--model", "m", "--exp-id", "twice", "--concurrency", "1"],
                              capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        summary = json.loads(done.stdout.splitlines()[-1])
        assert len(peer.chat_requests()) == summary["total"] == 2 * len(seen)
        assert all(count == 2 for count in seen.values()) and len(seen) == len(data.load_bundled_sample())
        figures = summary["epochs"]
        assert figures["epochs"] == 2 and figures["samples"] == len(seen)
        assert figures["mean_accuracy"] == pytest.approx(0.5)
        assert figures["pass_at_k"]["2"] == pytest.approx(1.0)
        report = (Path(summary["out_dir"]) / "report.md").read_text()
        assert "## Repeats" in report and "**50.0%**" in report and "pass@2 100.0%" in report
