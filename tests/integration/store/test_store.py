"""The run store's group commit: batched writes are durable when reported, survive kill -9, keep
their order, and many writers (threads and processes) lose nothing. (Migrations: test_run_state.py.)

Run as a script (``PYTHONPATH=tests python tests/integration/store/test_store.py child DB BASE_URL``) this file is the child process
that a test kills: it runs an echo experiment and prints each sample the runner reports finished.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from unit.store.test_store import (
    _open_fresh_stores,  # noqa: F401  (shared with the unit layer; fixtures are used by name)
    _register,  # noqa: F401  (shared with the unit layer; fixtures are used by name)
)

from evalui.store.run_store import RunStore

HERE = Path(__file__).resolve().parents[2]


def _child_environment() -> dict:
    # The child runs this file as a script; its helpers import from the tests folder.
    return {**os.environ, "PYTHONPATH": str(HERE)}


def test_a_reported_sample_survives_kill_9(tmp_path):
    from support.openai_peer import ScriptedPeer, completion

    def slow_echo(body, n):
        reply = completion(body["messages"][0]["content"])
        reply.delay_s = 0.05
        return reply

    database = tmp_path / "runs.sqlite"
    with ScriptedPeer(slow_echo) as peer:
        child = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "child", str(database), peer.base_url],
                                 stdout=subprocess.PIPE, text=True, cwd=HERE, env=_child_environment())
        reported = []
        while len(reported) < 5:
            line = child.stdout.readline()
            assert line, "the child ended before reporting five samples"
            if line.startswith("done "):
                reported.append(line.split()[1])
        child.send_signal(signal.SIGKILL)  # no flush, no close, no atexit
        child.wait(timeout=10)
    store = RunStore(database)
    judged = {s.sample_id for s in store.samples("kill-1") if s.stage == "judged"}
    assert set(reported) <= judged
    assert len(judged) < 200  # it was killed mid-run, not after it
    store.close()


def _child(database: str, base_url: str) -> None:
    sys.path.insert(0, str(HERE))
    from evalui.endpoint.client import ModelClient
    from evalui.endpoint.settings import EndpointSettings
    from evalui.run.runner import run_experiment
    from integration.run.test_runner import EchoTask

    store = RunStore(database)
    _register(store, "kill-1", 200)

    def say(progress) -> None:
        if progress.message.endswith(": correct"):
            print("done", progress.message.split(":")[0], flush=True)

    client = ModelClient(EndpointSettings(base_url=base_url, model="m", api_key="sk-test-key"))
    run_experiment(store, "kill-1", EchoTask(), client, concurrency=4, on_progress=say)


def test_two_processes_writing_one_store_lose_nothing(tmp_path):
    path = tmp_path / "shared.sqlite"
    RunStore(path).close()
    children = [subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "writer", str(path), f"p{k}"],
                                 cwd=HERE, env=_child_environment()) for k in range(2)]
    assert [c.wait(timeout=120) for c in children] == [0, 0]
    store = RunStore(path)
    for k in range(2):
        assert store.progress(f"p{k}")["judged"] == 300
    store.close()


def _writer(database: str, exp_id: str) -> None:
    store = RunStore(database)
    _register(store, exp_id, 300)
    for i in range(300):
        store.record_judgement(exp_id, f"s{i}", prediction=i, correct=True, verdict={}, wait=i % 50 == 0)
    store.close()


if __name__ == "__main__":
    {"child": _child, "writer": _writer}[sys.argv[1]](*sys.argv[2:])


def test_processes_opening_a_new_store_together_all_succeed(tmp_path):
    # Workers started together (two `evalui … run --exp-id X`) open one new SQLite file at once.
    # Switching it to WAL used to fail at once with "database is locked" in about 3 rounds of 100.
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    rounds, processes = 300, 3
    barrier, errors = context.Barrier(processes), context.Queue()
    workers = [context.Process(target=_open_fresh_stores, args=(str(tmp_path), rounds, barrier, errors))
               for _ in range(processes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    failures = []
    while not errors.empty():
        failures.append(errors.get())
    assert failures == []
    assert [worker.exitcode for worker in workers] == [0] * processes
    assert len(list(tmp_path.glob("store-*.sqlite"))) == rounds
