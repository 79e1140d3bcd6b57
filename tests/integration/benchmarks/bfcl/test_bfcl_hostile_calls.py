"""Multi-turn calls that pass the name checks but would take minutes: bounded before they run, and
run in a worker process whose deadlines stop them, so neither a run nor the server waits on them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from peers import settings_for
from unit.benchmarks.bfcl.test_bfcl_hostile_calls import SLOW_ROUND  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.sandbox.call_worker import close_pools
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.openai_peer import ScriptedPeer, completion

ROOT = Path(__file__).resolve().parents[4]


def _hostile_file(tmp_path: Path, calls: dict, entry_id: str = "multi_turn_base_15") -> Path:
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"id": entry_id, "result": [[[calls] * 5], [], [], [], []]}) + "\n")
    return path


def test_the_reported_60_byte_call_is_refused_by_the_cli(tmp_path):
    """The reproduction from the report: ``evalui bfcl score`` on a 60-byte round_number call."""
    path = _hostile_file(tmp_path, SLOW_ROUND)
    done = subprocess.run([sys.executable, "-m", "evalui", "bfcl", "score", "--category", "multi_turn_base",
                           "--results", str(path), "--out", str(tmp_path / "v.jsonl")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    [verdict] = [json.loads(line) for line in open(tmp_path / "v.jsonl")]
    assert not verdict["correct"] and verdict["error_type"] == "refused_call"
    assert verdict["refused_calls"] == 5


def test_a_run_goes_on_while_one_sample_calls_past_its_deadline(store, monkeypatch):
    """In a run, the slow call fails its step with call_timeout (the model is told so) and the
    conversation goes on; the other samples keep being asked while the call runs."""
    monkeypatch.setenv("EVALUI_SIZE_ARGUMENT_LIMIT", str(10**9))
    monkeypatch.setenv("EVALUI_CALL_SECONDS", "2")
    close_pools()
    category = "multi_turn_base"
    oracle = MultiTurnOracle([category], limit=16)
    slow_entry = "multi_turn_base_15"  # the first entry with MathAPI's round_number
    sent_slow = threading.Event()
    others_asked, slow_answered = [], []

    def script(body, n):
        entry = oracle.entry_for(body)
        turn, step = oracle.position(body)
        if entry.id == slow_entry:
            if turn == 0 and step == 0:
                sent_slow.set()
                return completion(None, [("round_number", json.dumps({"number": 1, "decimal_places": -10**7}))])
            if turn == 0 and step == 1:
                slow_answered.append(time.monotonic())  # the stopped call's result came back
        else:
            sent_slow.wait(60)  # the others go on once the slow call is under way
            others_asked.append(time.monotonic())
        return oracle.reply(body)

    try:
        with ScriptedPeer(script) as peer:
            settings = settings_for(peer)
            exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[category], limit=16, mode="fc"), settings,
                                       exp_id="slow-call")
            summary = lifecycle.execute(store, exp_id, settings, concurrency=16)
    finally:
        close_pools()
    assert summary["errors"] == 0 and summary["total"] == 16
    slow = next(s for s in store.samples(exp_id) if s.sample_id == slow_entry)
    results = [r for step in slow.trajectory for r in step.get("tool_results", [])]
    assert results[0]["error"] == "call_timeout" and "round_number" in results[0]["content"]
    assert len(slow.trajectory) > 2  # the conversation went on after the stopped call
    assert slow_answered and sum(1 for t in others_asked if t < slow_answered[0]) > 15
    # The samples that shared the killed worker had their backends rebuilt there (their calls so far
    # replayed), and their gold conversations still pass.
    others = [s for s in store.samples(exp_id) if s.sample_id != slow_entry]
    assert [s.sample_id for s in others if not s.correct] == []


def test_the_score_api_answers_other_requests_while_a_hostile_upload_is_scored(tmp_path, monkeypatch):
    """The dashboard's Score tab scores a file whose every line runs a call until its deadline;
    meanwhile /config and the Runs listing are answered, long before the scoring ends."""
    from urllib.request import urlopen

    from app_client import app_client, launch_demo
    from gradio_client import handle_file

    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EVALUI_SIZE_ARGUMENT_LIMIT", str(10**9))
    monkeypatch.setenv("EVALUI_CALL_SECONDS", "3")
    close_pools()
    for name in ("EVALUI_ALLOWED_USERS", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)
    import app

    math_ids = ("multi_turn_base_15", "multi_turn_base_28", "multi_turn_base_31")  # they offer round_number
    entries = [e for e in load_category("multi_turn_base") if e.id in math_ids]
    upload = tmp_path / "BFCL_v4_multi_turn_base_result.json"
    upload.write_text("".join(json.dumps({"id": e.id, "result": [[[SLOW_ROUND]]] + [[]] * (len(e.possible_answer) - 1)})
                              + "\n" for e in entries))
    demo = app.build_demo()
    demo.queue()
    _, url, _ = launch_demo(demo)
    try:
        client = app_client(url, verbose=False)
        job = client.submit("multi_turn_base", handle_file(str(upload)), api_name="/score_bfcl_file")
        while not job.status().code.name == "PROCESSING":
            time.sleep(0.05)
        answered = []
        for _ in range(3):
            with urlopen(f"{url}config", timeout=60) as response:
                answered.append((response.status, job.done()))
        runs = app_client(url, verbose=False).predict(api_name="/runs_list")
        answered.append(("runs", job.done()))
        outputs = job.result(timeout=600)
    finally:
        demo.close()
        close_pools()
    assert [status for status, _ in answered[:3]] == [200, 200, 200]
    assert runs is not None
    assert not any(done for _, done in answered)  # every answer came while the upload was being scored
    verdict_file = next(o for o in outputs if isinstance(o, str) and o.endswith(".jsonl"))
    verdicts = [json.loads(line) for line in open(verdict_file, encoding="utf-8")]
    assert [v["error_type"] for v in verdicts] == ["call_timeout"] * 3


def test_a_worker_dies_with_the_process_that_started_it(tmp_path):
    """kill -9 of the server leaves no worker running a call behind."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import sys\n"
        "from evalui.sandbox.call_worker import shared_pool\n"
        "from evalui.benchmarks.bfcl.isolated import HANDLER, PRELOAD\n"
        "if __name__ == '__main__':\n"
        "    pool = shared_pool(HANDLER, PRELOAD)\n"
        "    pool.request('census', None, affinity=0)\n"
        "    print(pool.workers[0].process.pid, flush=True)\n"
        "    sys.stdin.read()\n")
    parent = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              cwd=ROOT)
    worker_pid = int(parent.stdout.readline())
    os.kill(worker_pid, 0)  # running
    parent.kill()
    parent.wait()
    for _ in range(200):
        try:
            os.kill(worker_pid, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{worker_pid}/stat") as stat:
            if stat.read().split()[2] == "Z":  # a zombie awaiting its reaper has ended
                return
        time.sleep(0.05)
    pytest.fail("the worker outlived the process that started it")


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_a_flood_of_calls_in_one_step_stops_the_conversation_without_being_stored(store, mode, tmp_path):
    """3,000 calls in one step (or a 300 KB reply) are neither run nor stored: the sample fails as
    too_many_calls (too_large), and the run's other samples are judged as usual."""
    category = "multi_turn_base"
    oracle = MultiTurnOracle([category], limit=3)
    flood_ids = {"multi_turn_base_0": "too_many_calls", "multi_turn_base_1": "too_large"}

    def script(body, n):
        entry = oracle.entry_for(body)
        if entry.id in flood_ids and oracle.position(body) == (0, 0):
            if flood_ids[entry.id] == "too_many_calls":
                if mode == "fc":
                    return completion(None, [("pwd", "{}")] * 3000)
                return completion("[" + ", ".join(["pwd()"] * 3000) + "]")
            return completion("x" * 300_000)
        return oracle.reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[category], limit=3, mode=mode), settings,
                                   exp_id=f"flood-{mode}")
        lifecycle.execute(store, exp_id, settings, concurrency=3)
    samples = {s.sample_id: s for s in store.samples(exp_id)}
    for sample_id, kind in flood_ids.items():
        sample = samples[sample_id]
        assert sample.verdict is not None, (sample.stage, sample.error, sample.trajectory and sample.trajectory[-1])
        assert not sample.correct and sample.verdict["error_type"] == kind
        assert len(sample.trajectory) == 1 and kind in sample.trajectory[0]["note"]
        step = sample.trajectory[0]
        assert len(step["text"]) < 2_100 and len(json.dumps(step["tool_calls"])) < 2_000  # a preview only
    assert samples["multi_turn_base_2"].correct
    exported = lifecycle.export(store, exp_id, out=tmp_path / "out")
    assert (tmp_path / "out").exists() and exported["total"] == 3
    assert (tmp_path / "out" / "samples.jsonl").stat().st_size < 250_000  # the 300 KB reply is not in it


def test_a_call_past_its_deadline_is_stopped_in_the_worker_and_the_next_line_is_scored(tmp_path, monkeypatch):
    """With the argument bounds lifted, the same call really runs for half a minute: the worker's
    per-call deadline stops it, the line fails as call_timeout, and a gold line after it still passes."""
    from evalui.benchmarks.bfcl.score_file import score_result_file

    monkeypatch.setenv("EVALUI_SIZE_ARGUMENT_LIMIT", str(10**9))
    monkeypatch.setenv("EVALUI_CALL_SECONDS", "1")
    entries = {e.id: e for e in load_category("multi_turn_base")}
    gold = entries["multi_turn_base_1"]  # its gold calls, as one prompt-mode step per turn, pass
    path = tmp_path / "lines.json"
    with open(path, "w") as out:
        out.write(json.dumps({"id": "multi_turn_base_15", "result": [[[SLOW_ROUND]], [], [], [], []]}) + "\n")
        out.write(json.dumps({"id": gold.id, "result": [["[" + ", ".join(t) + "]"] if t else ["Done."]
                                                         for t in gold.possible_answer]}) + "\n")
    close_pools()  # a worker reads the limits when it starts: new ones for this test, and after it
    try:
        verdicts, _ = score_result_file(path, "multi_turn_base")
    finally:
        close_pools()
    by_id = {v["id"]: v for v in verdicts}
    assert by_id["multi_turn_base_15"]["error_type"] == "call_timeout"
    assert "round_number" in by_id["multi_turn_base_15"]["error"]
    assert by_id[gold.id]["correct"]
