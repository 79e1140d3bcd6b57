"""The GAIA tool agent against a hostile endpoint: floods of calls and characters end the task at
that step with ``too_many_calls`` or ``too_large``, nothing of the flood runs, and the stored
samples stay small."""

from __future__ import annotations

import json
from pathlib import Path

from peers import settings_for

from evalui.benchmarks.gaia.budget import CALLS_PER_STEP, SAMPLE_CHARS
from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
from evalui.benchmarks.gaia.spec import GaiaOptions
from evalui.run import lifecycle
from integration.benchmarks.gaia.test_gaia_agent import run_cli, write_questions
from support.openai_peer import (
    ScriptedPeer,
    completion,
    first_user_text,
    tool_call_text,
    tool_outputs,
)

GROW_CHARS = 240_000  # under the step's cap; nine of them pass the sample's


def hostile(body, n):
    question = first_user_text(body)
    if "flood" in question:
        return completion("", tool_calls=[("files", "{}")] * 3000)
    if "echo" in question:
        return completion("", tool_calls=[("files", json.dumps({"name": "e" * 45_000}))] * 10)
    if "grow" in question:
        return completion("g" * GROW_CHARS, tool_calls=[("files", "{}")])
    if "parallel" in question and not tool_outputs(body):
        return completion("", tool_calls=[("files", "{}")] * CALLS_PER_STEP)  # at the cap: allowed
    return completion("FINAL ANSWER: 4")


def test_floods_end_the_task_with_too_many_calls_or_too_large_and_the_samples_stay_small(tmp_path):
    questions = write_questions(tmp_path, [
        {"task_id": "flood", "Question": "flood: call a tool three thousand times", "Final answer": "4"},
        {"task_id": "echo", "Question": "echo: ten calls of 45,000 characters", "Final answer": "4"},
        {"task_id": "grow", "Question": "grow: a long reply at every step", "Final answer": "4"},
        {"task_id": "parallel", "Question": "parallel: sixteen calls, then 2 + 2", "Final answer": "4"},
        {"task_id": "fine", "Question": "fine: what is 2 + 2?", "Final answer": "4"},
    ])
    data = tmp_path / "data"
    with ScriptedPeer(hostile) as peer:
        done = run_cli("--questions", str(questions), "--tools", "files", "--base-url", peer.base_url, "--model", "m",
                       "--exp-id", "hostile", "--max-retries", "0", data_dir=data)
        asked = [first_user_text(r.body).split(":")[0] for r in peer.chat_requests()]
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["status"] == "finished" and summary["errors"] == 0 and summary["correct"] == 2
    assert asked.count("flood") == 1 and asked.count("echo") == 1  # stopped at the first step, never asked again
    assert asked.count("grow") == 9  # eight replies of 240,000 characters fit in 2 MiB; the ninth does not

    out = Path(summary["out_dir"])
    lines = {json.loads(line)["id"]: line for line in (out / "samples.jsonl").read_text().splitlines()}
    samples = {key: json.loads(line) for key, line in lines.items()}
    for key, kind in (("flood", "too_many_calls"), ("echo", "too_large"), ("grow", "too_large")):
        sample = samples[key]
        assert sample["stage"] == "judged" and sample["correct"] is False
        assert sample["verdict"]["error_type"] == kind and sample["verdict"]["note"].startswith(kind)
        last = sample["trajectory"][-1]
        assert last["note"].startswith(f"{kind}: ") and last["tool_results"] == []
        assert len(last["tool_calls"]) <= 4 and len(last["text"]) < 3000
    assert "the step has 3,000 calls, more than the 16 allowed; none was run" in samples["flood"]["verdict"]["note"]
    assert samples["flood"]["trajectory"][-1]["tool_calls"][-1]["name"] == "[2,997 more calls not stored]"
    assert "the step's reply has 450,170 characters, more than the 262,144 allowed" in samples["echo"]["verdict"]["note"]
    assert "the sample's replies reach 2,16" in samples["grow"]["verdict"]["note"]
    assert len(samples["grow"]["trajectory"]) == 9
    assert samples["parallel"]["correct"] and len(samples["parallel"]["trajectory"][0]["tool_results"]) == CALLS_PER_STEP
    assert len(lines["flood"]) < 20_000 and len(lines["echo"]) < 20_000
    assert len(lines["grow"]) < 8 * GROW_CHARS + 100_000  # the replies that fit, and no more
    assert (out / "samples.jsonl").stat().st_size < 2 * SAMPLE_CHARS


def test_text_protocol_flood_and_tool_results_past_the_sample_cap(store, tmp_path, monkeypatch):
    attachment = tmp_path / "long.txt"
    attachment.write_text("word " * 10_000)  # the files tool returns its first 20,000 characters
    questions = write_questions(tmp_path, [
        {"task_id": "blocks", "Question": "blocks: many calls written as text", "Final answer": "4"},
        {"task_id": "reread", "Question": "reread: the attachment again and again", "Final answer": "4",
         "file_name": "long.txt"},
    ])

    def script(body, n):
        if "blocks" in first_user_text(body):
            return completion("Let me look.\n" + tool_call_text("files", {}) * 20)
        return completion(tool_call_text("files", {}))

    monkeypatch.setenv("EVALUI_MAX_SAMPLE_BYTES", "50000")
    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0, timeout_s=120)
        options = GaiaOptions(source=f"questions:{questions}", tools=["files"], tool_protocol="text")
        exp_id = lifecycle.prepare(store, GAIA, options, settings, concurrency=1)
        summary = lifecycle.execute(store, exp_id, settings)
    assert summary["errors"] == 0 and summary["correct"] == 0
    samples = {s.sample_id: s for s in store.samples(exp_id)}
    blocks = samples["blocks"]
    assert blocks.verdict["error_type"] == "too_many_calls" and "the step has 20 calls" in blocks.verdict["note"]
    assert blocks.trajectory[-1]["tool_results"] == []
    reread = samples["reread"]
    assert reread.verdict["error_type"] == "too_large"
    assert "the sample's replies and tool results reach" in reread.verdict["note"]
    assert len(reread.trajectory) == 3  # two results of 20,000 characters fit in 50,000; the third does not
    stored = reread.trajectory[-1]["tool_results"]
    assert stored[0]["name"] == "files" and len(stored[0]["content"]) < 300
