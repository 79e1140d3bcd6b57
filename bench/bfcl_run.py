"""BFCL run engine figures against a scripted endpoint with 100 ms of latency per request.

1. Throughput: 400 simple_python samples at concurrency 1 and 32, against the ideal N·L/C.
   Target at C = 32: at most 1.2 × the ideal.
2. Crash and resume: the CLI is killed with SIGKILL partway through a run, then resumed with
   the same --exp-id. Repeated calls = requests for samples the store had already finished
   when the process died. Target: 0. (Requests that were in flight at the kill had no answer
   recorded, so they are asked again; they are counted separately.)

Run: .venv/bin/python bench/bfcl_run.py
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from evalui.benchmarks.bfcl.run import execute_bfcl_run, prepare_bfcl_run
from evalui.engine.settings import EndpointSettings
from evalui.engine.store import RunStore
from evalui.scoring.bfcl_official import load_official
from evalui.testing.bfcl_oracle import BfclOracle
from evalui.testing.openai_peer import ScriptedPeer

N = 400
LATENCY_S = 0.1


def serve_gold_answers(port: int, ready) -> None:
    """The endpoint, in its own process as a real server would be, so it does not share our GIL."""
    oracle = BfclOracle(["simple_python"])

    def script(body, n):
        reply = oracle.gold_reply(body)
        reply.delay_s = LATENCY_S
        return reply

    peer = ScriptedPeer(script, port=port).start()
    ready.set()
    signal.pause()
    peer.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def throughput() -> None:
    port = free_port()
    ready = multiprocessing.Event()
    server = multiprocessing.get_context("fork").Process(target=serve_gold_answers, args=(port, ready), daemon=True)
    server.start()
    ready.wait(60)
    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(Path(folder) / "bench.sqlite")
        settings = EndpointSettings(base_url=f"http://127.0.0.1:{port}/v1", model="bench", api_key="sk-bench")
        print(f"throughput: {N} simple_python samples, {LATENCY_S * 1000:.0f} ms per request")
        for concurrency in (1, 32):
            exp_id = prepare_bfcl_run(store, settings, ["simple_python"], limit=N, mode="fc", exp_id=f"c{concurrency}")
            summary = execute_bfcl_run(store, settings, exp_id, concurrency=concurrency, out=Path(folder) / exp_id)
            ideal = N * LATENCY_S / concurrency
            print(f"  C={concurrency:<3} wall {summary['duration_s']:7.2f} s   ideal {ideal:6.2f} s   "
                  f"ratio {summary['duration_s'] / ideal:5.2f}   correct {summary['correct']}/{summary['total']}")
        store.close()
    server.terminate()
    server.join()


def finished_ids(database: Path, exp_id: str) -> set[str]:
    try:
        with sqlite3.connect(database, timeout=5) as db:
            return {row[0] for row in db.execute(
                "SELECT sample_id FROM samples WHERE exp_id = ? AND stage != 'init'", (exp_id,))}
    except sqlite3.OperationalError:  # the run has not created its tables yet
        return set()


def crash_and_resume(oracle: BfclOracle, kill_after_finished: int = 120) -> None:
    def script(body, n):
        reply = oracle.gold_reply(body)
        reply.delay_s = LATENCY_S
        return reply

    with ScriptedPeer(script) as peer, tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, EVALUI_DATA_DIR=folder, OPENAI_API_KEY="sk-bench")
        command = [sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python", "--limit", str(N),
                   "--base-url", peer.base_url, "--model", "bench", "--concurrency", "8", "--exp-id", "crash"]
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        database = Path(folder) / "evalui.sqlite"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            time.sleep(0.05)
            if database.exists() and len(finished_ids(database, "crash")) >= kill_after_finished:
                break
        process.send_signal(signal.SIGKILL)
        process.wait()
        done_at_kill = finished_ids(Path(folder) / "evalui.sqlite", "crash")
        asked_before = Counter(oracle.entry_for(r.body).id for r in peer.chat_requests())
        resumed = subprocess.run(command, env=env, capture_output=True, text=True)
        asked_after = Counter(oracle.entry_for(r.body).id for r in peer.chat_requests()) - asked_before
        repeated = sum(count for sample_id, count in asked_after.items() if sample_id in done_at_kill)
        in_flight = sum(1 for sample_id in asked_after if sample_id in asked_before and sample_id not in done_at_kill)
        final = finished_ids(Path(folder) / "evalui.sqlite", "crash")
        print(f"crash and resume: SIGKILL with {len(done_at_kill)} of {N} samples finished")
        print(f"  resumed exit code {resumed.returncode}; samples finished at the end: {len(final)}/{N}")
        print(f"  repeated calls for finished samples: {repeated} (target 0)")
        print(f"  in-flight requests asked again: {in_flight}")
        print(f"  finished samples lost: {len(done_at_kill - final)}")


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    load_official()
    oracle = BfclOracle(["simple_python"])
    throughput()
    crash_and_resume(oracle)


if __name__ == "__main__":
    main()
