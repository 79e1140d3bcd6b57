"""Reliability figures for the run engine (printed, never asserted):

1. Crash and resume: a 400-sample BFCL run (100 ms per request, concurrency 8) is killed with
   SIGKILL at 10 random points and resumed each time. Counts: finished samples lost (target 0),
   and requests for samples that were finished before a kill (target 0).
2. Faults: 10 % of responses are 429, 500, a timeout or garbage. The run must complete, and an
   error must never count as a correct answer.

Run: .venv/bin/python bench/reliability.py
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from common import PeerProcess, finished_ids, gold_script

from support.bfcl_oracle import BfclOracle
from support.openai_peer import Reply, error

N = 400
LATENCY_S = 0.1
KILLS = 10


def faulty_script():
    """Gold answers for even ids, wrong ones for odd ids; 10 % of all responses are faults."""
    oracle = BfclOracle(["simple_python"])
    rng = random.Random(7)

    def script(body, n):
        roll = rng.random()
        if roll < 0.025:
            return error(429, "slow down", retry_after=0.05)
        if roll < 0.05:
            return error(500)
        if roll < 0.075:
            return Reply(body=oracle.gold_reply(body).body, delay_s=3.0)  # longer than the client's timeout
        if roll < 0.10:
            return Reply(status=200, body="<html>garbage")
        entry = oracle.entry_for(body)
        return oracle.gold_reply(body) if int(entry.id.rsplit("_", 1)[1]) % 2 == 0 else oracle.wrong_reply(body)

    return script


def cli(base_url, exp_id, folder, extra=()):
    return [sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python", "--limit", str(N),
            "--base-url", base_url, "--model", "bench", "--exp-id", exp_id, *extra], \
        dict(os.environ, EVALUI_DATA_DIR=folder, OPENAI_API_KEY="sk-bench")


def crash_and_resume() -> None:
    oracle = BfclOracle(["simple_python"])
    rng = random.Random(11)
    kill_points = sorted(rng.sample(range(20, N - 20), KILLS))
    kills: list[tuple[float, set[str]]] = []  # (when, samples finished at that moment)
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "evalui.sqlite"
        peer = PeerProcess(lambda: gold_script(LATENCY_S), Path(folder) / "requests.log")
        command, env = cli(peer.base_url, "kill9", folder, ["--concurrency", "8"])
        for point in kill_points:
            process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and len(finished_ids(database, "kill9")) < point:
                time.sleep(0.02)
            process.send_signal(signal.SIGKILL)
            process.wait()
            kills.append((time.time(), finished_ids(database, "kill9")))
        final = subprocess.run(command, env=env, capture_output=True, text=True)
        done = finished_ids(database, "kill9")
        requests = [(at, oracle.by_question[q].id) for at, q in peer.stop() if q in oracle.by_question]
    lost = sum(len(finished - done) for _, finished in kills)
    repeated = sum(1 for at, sample in requests if any(at > when and sample in finished for when, finished in kills))
    asked = Counter(sample for _, sample in requests)
    in_flight_again = sum(count - 1 for count in asked.values() if count > 1) - repeated
    print(f"crash and resume: {KILLS} SIGKILLs (at {', '.join(map(str, kill_points))} finished samples), "
          f"then a final resume (exit {final.returncode})")
    print(f"  samples finished at the end: {len(done)}/{N}")
    print(f"  finished samples lost: {lost} (target 0)")
    print(f"  repeated calls for samples already finished: {repeated} (target 0)")
    print(f"  requests in flight at a kill, asked again after it: {in_flight_again}")


def faults() -> None:
    with tempfile.TemporaryDirectory() as folder:
        peer = PeerProcess(faulty_script)
        command, env = cli(peer.base_url, "faults", folder, ["--concurrency", "8", "--timeout", "1", "--max-retries", "6"])
        started = time.perf_counter()
        result = subprocess.run(command, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        peer.stop()
        import json
        import sqlite3

        summary = json.loads(result.stdout.splitlines()[-1])
        with sqlite3.connect(Path(folder) / "evalui.sqlite") as db:
            rows = db.execute("SELECT sample_id, stage, correct, error FROM samples WHERE exp_id='faults'").fetchall()
    wrong_but_correct = sum(1 for sid, stage, correct, _ in rows if correct and int(sid.rsplit("_", 1)[1]) % 2)
    errors_counted_correct = sum(1 for _, stage, correct, err in rows if stage != "judged" and correct)
    print(f"faults: 10% of responses were 429, 500, timeouts or garbage; run {summary['status']} in {elapsed:.1f} s")
    print(f"  judged {len(rows) - summary['errors']}/{N}, correct {summary['correct']} (expected {N // 2}), "
          f"errors left {summary['errors']}")
    print(f"  wrong answers counted correct: {wrong_but_correct}; errors counted correct: {errors_counted_correct} (target 0)")


def main() -> None:
    crash_and_resume()
    faults()


if __name__ == "__main__":
    main()
