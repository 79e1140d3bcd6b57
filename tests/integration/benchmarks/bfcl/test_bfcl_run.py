"""BFCL runs end to end against a scripted endpoint: verdicts, resume, cancel, exports, secrets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from bfcl_official_cli import run_bfcl
from peers import SENTINEL_KEY, settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, error

CATEGORIES = ["simple_python", "multiple", "parallel", "irrelevance", "live_simple", "simple_java", "simple_javascript"]
# The oracle's Java rendering of nested HashMaps is not what the Java checker reads, so Java's
# gold answers are exercised in the agreement tests rather than held to full marks here.
FULL_MARKS_CATEGORIES = [c for c in CATEGORIES if c != "simple_java"]


@pytest.fixture(scope="module")
def oracle():
    return BfclOracle(CATEGORIES)


def asked_ids(peer, oracle):
    return Counter(oracle.entry_for(r.body).id for r in peer.chat_requests())


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_gold_answers_score_full_marks_in_both_modes(store, oracle, mode):
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=FULL_MARKS_CATEGORIES, limit=4, mode=mode),
                                   settings_for(peer))
        summary = lifecycle.execute(store, exp_id, settings_for(peer), concurrency=4)
        bodies = [r.body for r in peer.chat_requests()]
    assert summary["total"] == 4 * len(FULL_MARKS_CATEGORIES) and summary["errors"] == 0
    assert summary["correct"] == summary["total"], summary["error_types"]
    if mode == "fc":
        assert all(b.get("tools") for b in bodies if b["messages"])
        names = {t["function"]["name"] for b in bodies for t in b.get("tools") or []}
        assert not any("." in n for n in names)  # dotted names are sanitised for OpenAI-style APIs
    else:
        assert all(b["messages"][0]["role"] == "system" and "[func_name1(" in b["messages"][0]["content"] for b in bodies)  # bfcl's prompt


def test_wrong_answers_and_endpoint_errors_are_told_apart(store, oracle):
    def script(body, n):
        entry = oracle.entry_for(body)
        index = int(entry.id.rsplit("_", 1)[-1])
        if index % 4 == 1:
            return oracle.wrong_reply(body)
        if index % 4 == 2:
            return error(500, "always broken")
        return oracle.gold_reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=1)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=12, mode="fc"),
                                   settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=3)
    assert summary["total"] == 12
    assert summary["errors"] == 3 and summary["judged"] == 9
    assert summary["correct"] == 6
    assert summary["status"] == "incomplete"
    assert set(summary["error_types"]) == {"missing_parameter"}  # right function, made-up argument
    failed = [s for s in store.samples(exp_id) if s.error]
    assert len(failed) == 3 and all(s.correct is None and s.stage == "init" for s in failed)
    assert all("server_error" in s.error for s in failed)


def test_resume_sends_only_unfinished_samples(store, oracle):
    broken = {"on": True}

    def script(body, n):
        entry = oracle.entry_for(body)
        if broken["on"] and int(entry.id.rsplit("_", 1)[-1]) >= 6:
            return error(503)
        return oracle.gold_reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=10, mode="prompt"),
                                   settings, exp_id="resume-me")
        first = lifecycle.execute(store, exp_id, settings, concurrency=2)
        assert first["judged"] == 6 and first["errors"] == 4
        before = asked_ids(peer, oracle)
        broken["on"] = False
        lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=10, mode="prompt"), settings,
                          exp_id="resume-me")
        second = lifecycle.execute(store, exp_id, settings, concurrency=2)
        after = asked_ids(peer, oracle)
    assert second["judged"] == 10 and second["correct"] == 10 and second["status"] == "finished"
    resent = after - before
    assert set(resent) == {f"simple_python_{i}" for i in range(6, 10)}
    assert all(count == 1 for count in resent.values())


def test_mode_of_an_existing_run_cannot_change(store, oracle):
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=1, mode="fc"),
                          settings_for(peer), exp_id="fixed")
        with pytest.raises(ValueError, match="mode='fc'"):
            lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=1, mode="prompt"),
                              settings_for(peer), exp_id="fixed")


def test_cancel_stops_the_run_and_resume_finishes_it(store, oracle):
    cancel = threading.Event()

    def on_progress(progress):
        if progress.done >= 3:
            cancel.set()

    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=30, mode="fc"),
                                   settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=1, cancel=cancel, on_progress=on_progress)
        assert summary["status"] == "cancelled" and 3 <= summary["judged"] < 30
        summary = lifecycle.execute(store, exp_id, settings, concurrency=4)
        counts = asked_ids(peer, oracle)
    assert summary["status"] == "finished" and summary["judged"] == 30
    assert max(counts.values()) == 1 and len(counts) == 30


def test_exports_are_accepted_by_evalui_and_official_bfcl(store, oracle, tmp_path):
    def script(body, n):
        entry = oracle.entry_for(body)
        return oracle.wrong_reply(body) if int(entry.id.rsplit("_", 1)[-1]) % 3 == 0 else oracle.gold_reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=15, mode="fc"),
                                   settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=4)
    result_file = Path(summary["result_files"]["simple_python"])
    assert result_file.name == "BFCL_v4_simple_python_result.json"
    assert summary["correct"] == 10

    ours = subprocess.run([sys.executable, "-m", "evalui", "bfcl", "score", "--category", "simple_python",
                           "--results", str(result_file)], capture_output=True, text=True, timeout=300)
    assert ours.returncode == 0, ours.stderr
    assert json.loads(ours.stdout.splitlines()[-1])["correct"] == 10

    # The official CLI reads result/<registered model>/non_live/… under BFCL_PROJECT_ROOT.
    root = tmp_path / "bfcl_root"
    model = "gpt-4o-2024-11-20-FC"
    target = root / "result" / model / "non_live"
    target.mkdir(parents=True)
    (target / result_file.name).write_text(result_file.read_text())
    env = dict(os.environ, BFCL_PROJECT_ROOT=str(root), OPENAI_API_KEY="sk-unused")
    official = run_bfcl(["evaluate", "--model", model, "--test-category", "simple_python", "--partial-eval"], env=env, cwd=root)
    assert official.returncode == 0, official.stdout[-2000:] + official.stderr[-2000:]
    score_file = next((root / "score").rglob("BFCL_v4_simple_python_score.json"))
    header = json.loads(score_file.read_text().splitlines()[0])
    assert header["correct_count"] == 10 and header["total_count"] == 15


def test_report_and_samples_are_written(store, oracle):
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python", "irrelevance"], limit=3,
                                                            mode="prompt"), settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=2)
    folder = Path(summary["out_dir"])
    report = (folder / "report.md").read_text()
    for heading in ("## Overview", "## Accuracy per category", "## Error types", "## Samples"):
        assert heading in report
    assert "simple_python" in report and "irrelevance" in report
    assert "plotly" in (folder / "accuracy.html").read_text()
    assert (folder / "plotly.min.js").stat().st_size > 1_000_000  # charts open offline
    rows = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all(r["correct"] for r in rows)


def test_the_key_never_reaches_the_store_or_the_exports(store, oracle, tmp_path):
    def script(body, n):
        return error(401, f"Incorrect API key provided: {SENTINEL_KEY}") if n % 5 == 0 else oracle.gold_reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=10, mode="fc"),
                                   settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=2)
    assert summary["errors"] >= 1
    store.close()
    data_dir = Path(os.environ["EVALUI_DATA_DIR"])
    files = [p for p in data_dir.rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert SENTINEL_KEY.encode() not in path.read_bytes(), path


def test_requests_per_minute_spaces_the_requests(store, oracle):
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=6, mode="fc"), settings)
        lifecycle.execute(store, exp_id, settings, concurrency=6, requests_per_minute=300)  # one every 0.2 s
        times = sorted(r.received_at for r in peer.chat_requests())
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(times) == 6 and min(gaps) >= 0.15
