"""Where the 10 ms run phase goes beyond the bare client: the same run with steps of the per-sample
path removed, one after another, against the same endpoint and the bare client, in one run.

All 3,641 single-turn samples at C = 64 against a 10 ms endpoint (bench/fast_peer.py), as
engine_ceiling.py's second scenario. Each row is ``evalui bfcl run`` in a fresh process; the rows
after the first run through stripped_run.py, which replaces a step with a constant:

1. evalui as it is (EVALUI_JUDGE_PROCESS=auto: on fewer than four CPUs, it packs and judges the
   answers on its event loop);
2. evalui packing and judging them in a child process (EVALUI_JUDGE_PROCESS=on);
and from the first row, on the loop:
3. without the judge (the official AST checker);
4. without the judge and the keeping (packing the request and answer, their search documents);
5. without those and the progress events.

The last row is what is left when evalui does nothing but claim, ask, commit a row and count: how
close one interpreter can come to the bare client at all. For each row: the run phase (best of
REPEATS, interleaved with the bare client), its ratio to the bare client, the median run phase (this
machine's speed swings between runs), and the CPU per sample of the whole process (the judging
child's included) and of the event loop that sends the requests (loop_cpu_s): the loop's CPU per
sample caps the requests in flight at latency / (loop CPU per sample). Nothing is asserted.

Run: cd bench && ../.venv/bin/python engine_budget.py   (EVALUI_BENCH_REPEATS, default 3)
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine_ceiling import bare_aiohttp, request_bodies
from fast_peer import FastPeer, in_flight

from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES

REPEATS = int(os.environ.get("EVALUI_BENCH_REPEATS", "3"))
CONCURRENCY, LATENCY_S = 64, 0.010
ROWS = [  # label, steps removed (stripped_run.py; None: evalui as it is), EVALUI_JUDGE_PROCESS
    ("evalui", None, "auto"),
    ("judged in a child process", None, "on"),
    ("without the judge", "judge", "off"),
    ("... and without keeping", "judge+keep", "off"),
    ("... and without progress", "judge+keep+progress", "off"),
]
HERE = Path(__file__).resolve().parent


def evalui_run(peer: FastPeer, removed: str | None, judge_process: str, folder: Path,
               tag: str) -> tuple[dict, float, float]:
    """(summary, start, end on the monotonic clock) of one ``evalui bfcl run`` of every single-turn sample."""
    env = dict(os.environ, EVALUI_DATA_DIR=str(folder / tag), OPENAI_API_KEY="sk-bench",
               EVALUI_BENCH_REMOVE=removed or "", EVALUI_JUDGE_PROCESS=judge_process)
    program = [str(HERE / "stripped_run.py")] if removed else ["-m", "evalui"]
    command = [sys.executable, *program, "bfcl", "run", "--category", ",".join(CATEGORIES), "--limit", "0",
               "--mode", "fc", "--base-url", peer.base_url, "--model", "bench",
               "--concurrency", str(CONCURRENCY), "--exp-id", tag]
    started = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=HERE.parent)
    if done.returncode != 0:
        raise RuntimeError(f"evalui bfcl run failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1]), started, time.monotonic()


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    categories = list(CATEGORIES)
    bodies = request_bodies(categories, None)
    print(f"engine budget: {len(bodies)} requests, C = {CONCURRENCY}, {LATENCY_S * 1000:.0f} ms "
          f"(best of {REPEATS}; machine: {os.cpu_count()} cores, shared)")
    with tempfile.TemporaryDirectory() as folder:
        peer = FastPeer(categories, LATENCY_S, Path(folder) / "peer.log")
        url = peer.base_url + "/chat/completions"
        bare: list[float] = []
        runs: dict[str, list[tuple[dict, float, float]]] = {label: [] for label, *_ in ROWS}
        try:
            for attempt in range(REPEATS):
                began = time.perf_counter()
                asyncio.run(bare_aiohttp(url, bodies, CONCURRENCY))
                bare.append(time.perf_counter() - began)
                for index, (label, removed, judge_process) in enumerate(ROWS):
                    runs[label].append(evalui_run(peer, removed, judge_process, Path(folder), f"r{index}-{attempt}"))
        finally:
            log = peer.stop()
    report(min(bare), runs, log)


def report(bare: float, runs: dict, log) -> None:
    print(f"  {'bare aiohttp client':28s} {bare:6.2f} s")
    print(f"  {'':28s} {'run':>6s}   {'x bare':>6s}  {'median':>6s}  {'run CPU/sample':>14s}  {'loop CPU/sample':>15s}"
          "  mean in flight")
    for label, attempts in runs.items():
        summary, start, end = min(attempts, key=lambda run: run[0]["timings"]["run_s"])
        median = statistics.median(run[0]["timings"]["run_s"] for run in attempts)
        timings, n = summary["timings"], summary["total"] or 1
        run_s = timings["run_s"]

        def per_sample(key: str) -> str:
            return f"{timings[key] / n * 1000:.3f} ms" if timings.get(key) is not None else "-"

        _, mean = in_flight(log, start, end)
        print(f"  {label:28s} {run_s:6.2f} s {run_s / bare:6.2f}  {median:6.2f}  {per_sample('run_cpu_s'):>14s}  "
              f"{per_sample('loop_cpu_s'):>15s}  {mean:5.1f} of {CONCURRENCY}")


if __name__ == "__main__":
    main()
