"""The timings a run command prints (evalui.run.phases): every phase of a real ``evalui bfcl
run`` against a scripted endpoint, each present, non-negative, and adding up to the command's own
total, which fits in the wall time this test measured around it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from peers import SENTINEL_KEY

from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

CATEGORIES = ["simple_python", "multiple"]
LIMIT = 3
PHASES = ("load_s", "first_request_s", "run_s", "export_s")
SUMS = ("judge_s", "store_s", "commit_s")
CPU = ("cpu_s", "run_cpu_s", "loop_cpu_s")  # loop_cpu_s: a BFCL run sends from the client's event loop
WAITS = ("claim_wait_s", "gc_s")  # the loop's workers with no sample to send; the collector, over the run phase
# /proc gives a process's start in clock ticks (10 ms): its age may read up to a tick long.
TICK_S = 1 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.0
ROUNDING_S = 0.001 * len(PHASES)  # each figure is rounded to the millisecond


def test_a_cli_run_prints_every_phase_and_they_add_up(tmp_path):
    oracle = BfclOracle(CATEGORIES)
    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path), "OPENAI_API_KEY": SENTINEL_KEY}
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        began = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "evalui", "bfcl", "run", "--category", ",".join(CATEGORIES), "--limit", str(LIMIT),
             "--mode", "fc", "--base-url", peer.base_url, "--model", "m", "--concurrency", "2", "--exp-id", "timed"],
            env=env, capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - began
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["total"] == LIMIT * len(CATEGORIES) and summary["correct"] == summary["total"]

    timings = summary["timings"]
    assert set(timings) == {*PHASES, *SUMS, *CPU, *WAITS, "total_s"}
    assert timings["claim_wait_s"] <= timings["run_s"] and timings["gc_s"] <= timings["run_s"]
    assert all(isinstance(timings[key], float | int) and timings[key] >= 0 for key in timings), timings
    assert abs(sum(timings[key] for key in PHASES) - timings["total_s"]) <= ROUNDING_S, timings
    assert timings["total_s"] <= wall + TICK_S, (timings, wall)
    assert timings["run_s"] <= wall and timings["run_cpu_s"] <= timings["cpu_s"]
    assert timings["loop_cpu_s"] <= timings["run_cpu_s"] + 2 * TICK_S  # one thread's share of the process's
    # The record is unchanged: the timings are the command's, printed, not part of summary.json.
    assert "timings" not in json.loads((Path(summary["out_dir"]) / "summary.json").read_text())
