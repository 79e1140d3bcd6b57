"""Several `evalui bfcl run --exp-id X` processes share one run, on SQLite and on PostgreSQL: they
split the samples, the scripted peer is asked each question exactly once, every sample is judged,
and the summary is written by the worker that judged the last one. A worker killed with kill -9
gives its samples back when its lease runs out. How much faster two workers are is measured in
bench/team_workers.py, which uses these helpers."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from peers import SENTINEL_KEY
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)
from waiting import HANG_S, wait_for

from evalui.benchmarks.bfcl.data import load_category
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer, completion


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'data' / 'evalui.sqlite'}"
    return request.getfixturevalue("pg_url")


def answering_after(delay_s: float):
    def script(body, n):
        reply = completion("[]")
        reply.delay_s = delay_s
        return reply
    return script


def start_worker(peer, data_dir: Path, database: str, exp_id: str, limit: int, concurrency: int = 4,
                 lease_s: float | None = None, timeout_s: float = 60) -> subprocess.Popen:
    env = {**os.environ, "EVALUI_DATA_DIR": str(data_dir), "OPENAI_API_KEY": SENTINEL_KEY}
    env.pop("EVALUI_DATABASE_URL", None)
    if lease_s is not None:
        env["EVALUI_LEASE_S"] = str(lease_s)
    return subprocess.Popen(
        [sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python", "--limit", str(limit),
         "--mode", "fc", "--base-url", peer.base_url, "--model", "m", "--exp-id", exp_id,
         "--concurrency", str(concurrency), "--database-url", database, "--timeout", str(timeout_s)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@contextlib.contextmanager
def stopped_at_exit():
    """Workers started in the block are killed when it ends, so a failed test leaves none behind."""
    processes: list[subprocess.Popen] = []

    def started(new: list[subprocess.Popen]) -> list[subprocess.Popen]:
        processes.extend(new)
        return new

    try:
        yield started
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=HANG_S)


def _open_when_ready(database: str) -> RunStore | None:
    """The store, once a worker has created it (a SQLite file appears only then)."""
    if database.startswith("sqlite:///") and not Path(database[len("sqlite:///"):]).exists():
        return None
    return RunStore(url=database)


def finish(process: subprocess.Popen, timeout: float = 600) -> dict:
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err[-3000:]
    assert SENTINEL_KEY not in out + err
    return json.loads(out.strip().splitlines()[-1])


def test_two_workers_split_a_run_and_ask_each_question_once(tmp_path, database):
    count = 60
    both_joined = threading.Event()

    def script(body, n):
        both_joined.wait(300)  # the first worker's answers wait until the second worker has started
        return answering_after(0.05)(body, n)

    with ScriptedPeer(script) as peer, stopped_at_exit() as started:
        # The requests' timeout outlasts the wait above, so no request is asked twice while held.
        workers = started([start_worker(peer, tmp_path / "data", database, "shared-1", count, timeout_s=600)
                           for _ in range(2)])
        def both_live() -> bool:
            for worker in workers:
                assert worker.poll() is None, f"a worker ended before the other joined: {worker.communicate()[1][-3000:]}"
            store = _open_when_ready(database)
            if store is None:
                return False
            try:
                return len(store.live_workers("shared-1")) == 2
            finally:
                store.close()

        # A loaded CI machine takes long to import bfcl-eval: a generous bound, only against a hang.
        wait_for(both_live, "the two workers working at the same time", within_s=300, poll_s=0.1)
        both_joined.set()
        outputs = [finish(worker) for worker in workers]
        asked = len(peer.chat_requests())
    assert asked == count  # all judged (below), each needed one request: none was asked twice
    store = RunStore(url=database)
    samples = store.samples("shared-1")
    assert len(samples) == count and all(s.stage == "judged" and s.attempts == 1 for s in samples)
    by_worker = {}
    for sample in samples:
        by_worker.setdefault(sample.claimed_by.split(":")[1], []).append(sample.sample_id)
    assert set(by_worker) == {str(w.pid) for w in workers}, by_worker  # both did a share
    experiment = store.experiment("shared-1")
    assert experiment["status"] == "finished"
    finisher = experiment["finished_by"].split(":")[1]
    assert finisher in by_worker
    # The finisher wrote the summary and exports; the other stopped while it still worked, or after.
    summary = json.loads((tmp_path / "data" / "runs" / "shared-1" / "summary.json").read_text())
    assert summary["judged"] == count and summary["status"] == "finished"
    assert (tmp_path / "data" / "runs" / "shared-1" / "BFCL_v4_simple_python_result.json").exists()
    assert {o["total"] for o in outputs} == {count}
    assert experiment["summary"]["judged"] == count
    store.close()


def test_a_killed_worker_gives_its_samples_back_when_its_lease_runs_out(tmp_path, database):
    count, lease_s = 40, 3.0
    questions = {e.question[0][-1]["content"]: e.id for e in load_category("simple_python")[:count]}
    assert len(questions) == count  # a request names its sample by its question
    with ScriptedPeer(answering_after(0.1)) as peer, stopped_at_exit() as started:
        doomed, = started([start_worker(peer, tmp_path / "data", database, "kill-2", count, lease_s=lease_s)])
        store = RunStore(url=database)
        wait_for(lambda: store.experiment("kill-2") and store.progress("kill-2")["judged"] >= 5,
                 "the first worker never judged 5 samples")
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(timeout=HANG_S)
        killed_at = time.time()
        held = {s.sample_id for s in store.samples("kill-2", stages=("init", "rollout"))
                if s.claimed_by and s.claimed_by.split(":")[1] == str(doomed.pid)}
        # The first moment any of its claims can be taken again (None: they already ran out).
        free_from = store.held_elsewhere("kill-2", "an-observer")
        assert held, "the killed worker held no claims"
        survivor, = started([start_worker(peer, tmp_path / "data", database, "kill-2", count, lease_s=lease_s)])
        output = finish(survivor)
        requests = peer.chat_requests()
    assert output["total"] == count and output["status"] == "finished"
    samples = store.samples("kill-2")
    assert all(s.stage == "judged" for s in samples)
    # Only what the dead worker held (and had not finished) could be asked twice.
    assert count <= len(requests) <= count + len(held)
    # Its claims came back only once their lease ran out: no held sample was asked before then.
    asked_again = [r for r in requests if r.received_at > killed_at and questions[r.body["messages"][-1]["content"]] in held]
    assert len(asked_again) >= len(held)
    assert free_from is None or all(r.received_at >= free_from for r in asked_again), (free_from, asked_again)
    assert store.experiment("kill-2")["finished_by"].split(":")[1] == str(survivor.pid)
    store.close()
