"""How close the run engine comes to the ceiling: evalui against a bare keep-alive HTTP client that
sends the very same request bodies to the same endpoint at the same concurrency, in one run.

1. 400 simple_python at C = 32 against a 100 ms endpoint (issue 41's target: evalui's run phase
   <= 1.05 x bare).
2. All 3,641 single-turn samples (13 categories) at C = 64 against a 10 ms endpoint (target <= 1.3 x
   bare), with the requests the endpoint held at once (max and time-weighted mean).
3. The whole command, ``evalui bfcl run`` as a subprocess with import, registering and exports
   (target <= bare + 4 s).
   The run phase is the run's own ``run_s`` (first request to last verdict committed), as the bare
   client's time is its requests alone; the summary's ``duration_s`` (the run's preparation too) is
   printed beside it.
4. For each evalui run, where its time went (the ``timings`` of its summary line, evalui.run.phases):
   load, first request, run phase and exports, the judge's and the store's summed time, and the
   CPU per sample (the whole command's, the run phase's, and the run phase's on the event loop that
   sends the requests): against a fast endpoint, the loop's CPU per sample is what caps throughput,
   as the requests in flight can be no more than latency / (loop CPU per sample); the claim wait,
   the run phase's seconds in which the workers had no sample to send (their next claim was late);
   and GC, the run phase's seconds in Python's garbage collector.
The evalui figures are the real command's (a fresh process each time, so nothing is cached
from an earlier pass).
Beside them, in scenario 1: the official ``bfcl generate`` and Inspect AI's BFCL task, offline
against the same endpoint (Inspect from its own venv, when EVALUI_BENCH_INSPECT is set).

The endpoint is bench/fast_peer.py in its own process, answering with the gold calls. The bare
client is aiohttp (httpx is printed too: its pool costs ~1 ms of CPU per request at 64
connections, so it is no ceiling). Each figure is the best of REPEATS, interleaved, since the
machine is shared; ratios are taken within this one run. Nothing is asserted.

Run: cd bench && ../.venv/bin/python engine_ceiling.py
(EVALUI_BENCH_SCENARIOS=10 EVALUI_BENCH_REPEATS=1: the 10 ms scenario alone, once.)
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fast_peer import FastPeer, in_flight

from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES

REPEATS = int(os.environ.get("EVALUI_BENCH_REPEATS", "2"))
SCENARIOS = [  # name, categories, samples per category (None: all), concurrency, latency, target ratio
    ("400 simple_python, C=32, 100 ms", ["simple_python"], 400, 32, 0.100, 1.05),
    ("3,641 single-turn, C=64, 10 ms", list(CATEGORIES), None, 64, 0.010, 1.3),
]


def chosen_scenarios() -> list[tuple]:
    """EVALUI_BENCH_SCENARIOS: which to run, by latency in ms ("10", "100", "10,100"); all by default.
    With EVALUI_BENCH_REPEATS=1, "10" is a quick look at the CPU per sample while working on it."""
    wanted = os.environ.get("EVALUI_BENCH_SCENARIOS", "").strip()
    if not wanted:
        return SCENARIOS
    latencies = {int(part) for part in wanted.split(",") if part.strip()}
    return [s for s in SCENARIOS if round(s[4] * 1000) in latencies]


def request_bodies(categories, limit) -> list[bytes]:
    """The exact bodies evalui sends: build_request per entry, framed by ModelClient.request_body."""
    from evalui.benchmarks.bfcl.data import load_category
    from evalui.benchmarks.bfcl.request import build_request
    from evalui.endpoint.client import ModelClient, json_bytes
    from evalui.endpoint.settings import EndpointSettings

    client = ModelClient(EndpointSettings(base_url="http://127.0.0.1:9/v1", model="bench"))
    try:
        bodies = []
        for category in categories:
            for entry in load_category(category)[:limit]:
                request = build_request(entry, "fc")
                bodies.append(json_bytes(client.request_body(request["messages"], request["tools"], {},
                                                             request["extra_body"])))
        return bodies
    finally:
        client.close()


async def bare_aiohttp(url: str, bodies: list[bytes], concurrency: int) -> int:
    import aiohttp

    gate = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        async def one(body: bytes) -> dict:
            async with gate:
                async with session.post(url, data=body, headers={"content-type": "application/json"}) as reply:
                    return json.loads(await reply.read())

        return len(await asyncio.gather(*(one(b) for b in bodies)))


async def bare_httpx(url: str, bodies: list[bytes], concurrency: int) -> int:
    import httpx

    gate = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, trust_env=False) as client:
        async def one(body: bytes) -> dict:
            async with gate:
                reply = await client.post(url, content=body, headers={"content-type": "application/json"})
                return json.loads(reply.content)

        return len(await asyncio.gather(*(one(b) for b in bodies)))


def timed(function, *args) -> tuple[float, float, float]:
    """(seconds, start, end) on the monotonic clock the peer's log uses."""
    start = time.monotonic()
    function(*args)
    end = time.monotonic()
    return end - start, start, end


def evalui_cli(peer: FastPeer, categories, limit, concurrency, folder: Path, tag: str) -> tuple[dict, float]:
    """``evalui bfcl run`` as a user runs it; (its JSON summary, whole-command wall seconds)."""
    env = dict(os.environ, EVALUI_DATA_DIR=str(folder / tag), OPENAI_API_KEY="sk-bench")
    command = [sys.executable, "-m", "evalui", "bfcl", "run", "--category", ",".join(categories),
               "--limit", str(limit or 0), "--mode", "fc", "--base-url", peer.base_url, "--model", "bench",
               "--concurrency", str(concurrency), "--exp-id", tag]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"evalui bfcl run failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1]), wall


def official_generate(peer: FastPeer, categories, concurrency, folder: Path) -> tuple[float | None, str]:
    """``bfcl generate`` with a chat-completions FC handler pointed at the peer (its gpt-4o-*-FC
    handlers post to /v1/responses, which the peer does not speak)."""
    bfcl = Path(sys.executable).with_name("bfcl")
    if not bfcl.exists():
        return None, "no bfcl command in this environment"
    root = folder / "bfcl-generate"
    env = dict(os.environ, OPENAI_BASE_URL=peer.base_url, OPENAI_API_KEY="sk-bench", BFCL_PROJECT_ROOT=str(root))
    command = [str(bfcl), "generate", "--model", "openbmb/MiniCPM-SALA-FC", "--test-category", ",".join(categories),
               "--num-threads", str(concurrency), "--allow-overwrite"]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=folder)
    wall = time.perf_counter() - started
    written = sum(len(p.read_text().splitlines()) for p in root.rglob("BFCL_v4_*_result.json"))
    if done.returncode != 0 or not written:
        return None, f"bfcl generate failed ({done.returncode}): {(done.stderr or done.stdout)[-300:]}"
    return wall, f"{written} results written"


def inspect_eval(peer: FastPeer, concurrency: int, folder: Path) -> tuple[float | None, str]:
    """Inspect AI's BFCL task (inspect_evals/bfcl) against the same endpoint, from its own venv
    (EVALUI_BENCH_INSPECT names its ``inspect`` command). Its dataset is fetched with git; offline,
    its cache is seeded with bfcl-eval's bundled data, which is the same v4 data."""
    command = os.environ.get("EVALUI_BENCH_INSPECT")
    if not command:
        return None, ("not run: set EVALUI_BENCH_INSPECT to the `inspect` command of a separate venv "
                      "(python3.11 -m venv /tmp/inspect && /tmp/inspect/bin/pip install inspect-ai inspect-evals openai)")
    from evalui.benchmarks.bfcl.data import bfcl_data_dir

    cache = folder / "inspect-cache"
    if not (cache / "BFCL").exists():
        shutil.copytree(bfcl_data_dir(), cache / "BFCL")
    env = dict(os.environ, OPENAI_BASE_URL=peer.base_url, OPENAI_API_KEY="sk-bench", INSPECT_EVALS_CACHE_DIR=str(cache),
               INSPECT_LOG_DIR=str(folder / "inspect-logs"))
    started = time.perf_counter()
    done = subprocess.run([command, "eval", "inspect_evals/bfcl", "-T", "categories=simple_python", "--model",
                           "openai/bench", "--max-connections", str(concurrency), "--display", "plain",
                           "-M", "responses_api=false"], env=env, capture_output=True, text=True, cwd=folder)
    wall = time.perf_counter() - started
    accuracy = next((line.split()[-1] for line in done.stdout.splitlines() if line.strip().startswith("accuracy")), "?")
    if done.returncode != 0:
        return None, f"inspect eval failed ({done.returncode}): {(done.stderr or done.stdout)[-300:]}"
    return wall, f"its scorer's accuracy {accuracy}"


def scenario(name, categories, limit, concurrency, latency, target, folder: Path) -> None:
    bodies = request_bodies(categories, limit)
    peer = FastPeer(categories, latency, folder / f"{concurrency}-peer.log")
    try:
        best, cli, peers = measure(peer, bodies, categories, limit, concurrency, folder)
    finally:
        log = peer.stop()
    report(name, len(bodies), concurrency, latency, target, best, cli, peers, log)


def measure(peer: FastPeer, bodies, categories, limit, concurrency, folder: Path):
    """Every contestant against ``peer``, interleaved: (best by label, CLI runs, peers)."""
    url = peer.base_url + "/chat/completions"
    best: dict[str, tuple[float, float, float]] = {}
    cli: list[tuple[dict, float, float, float]] = []

    def keep(label, figure):
        if label not in best or figure[0] < best[label][0]:
            best[label] = figure

    keep("httpx", timed(lambda: asyncio.run(bare_httpx(url, bodies, concurrency))))
    for attempt in range(REPEATS):
        keep("bare", timed(lambda: asyncio.run(bare_aiohttp(url, bodies, concurrency))))
        started = time.monotonic()
        summary, wall = evalui_cli(peer, categories, limit, concurrency, folder, f"c{concurrency}-{attempt}")
        cli.append((summary, wall, started, time.monotonic()))
    peers: dict[str, tuple] = {}
    if concurrency == 32:
        for label, function in (("official bfcl generate", official_generate), ("Inspect AI (inspect_evals)", inspect_eval)):
            start = time.monotonic()
            result = function(peer, categories, concurrency, folder) if function is official_generate \
                else function(peer, concurrency, folder)
            peers[label] = (*result, (start, time.monotonic()))
    return best, cli, peers


def report(name, n, concurrency, latency, target, best, cli, peers, log) -> None:
    bare = best["bare"][0]
    # The run phase as the bare client's time is taken: from the first request to the last answer
    # (its verdict committed). The summary's duration_s also holds the run's preparation (reading
    # the pending samples, building their requests), which the load column counts.
    run_phase = min(_run_s(summary) for summary, *_ in cli)
    prepared_run = min(summary["duration_s"] for summary, *_ in cli)
    whole = min(wall for _, wall, *_ in cli)
    summary, _, cli_start, cli_end = min(cli, key=lambda c: _run_s(c[0]))

    def held(start, end) -> str:
        peak, mean = in_flight(log, start, end)
        return f"in flight at the peer: max {peak} ({peak / concurrency:.0%} of C), mean {mean:.1f} ({mean / concurrency:.0%})"

    print(f"\n{name}: {n} requests, ideal N*L/C = {n * latency / concurrency:.2f} s")
    print(f"  bare aiohttp client      {bare:7.2f} s   {held(*best['bare'][1:])}")
    print(f"  bare httpx client        {best['httpx'][0]:7.2f} s   (not the ceiling: httpx's pool at C={concurrency})")
    print(f"  evalui run phase         {run_phase:7.2f} s   ratio {run_phase / bare:5.2f} x bare (target <= {target})"
          f"   correct {summary['correct']}/{summary['total']}")
    print(f"  evalui prepare + run     {prepared_run:7.2f} s   ratio {prepared_run / bare:5.2f} x bare (the summary's duration_s)")
    print(f"      {held(cli_start, cli_end)}")
    print(f"  whole command            {whole:7.2f} s   target <= bare + 4 s = {bare + 4:.2f} s   "
          f"({'met' if whole <= bare + 4 else 'missed'})")
    phase_table(cli)
    for label, (seconds, note, window) in peers.items():
        rows = [(a, d) for a, d, _ in log if window[0] <= a <= window[1]]
        span = max(d for _, d in rows) - min(a for a, _ in rows) if rows else float("nan")
        print(f"  {label:25s}" + (f"{seconds:7.2f} s   whole command; {span:.2f} s from its first request to its "
              f"last answer ({span / bare:.2f} x bare); {note}\n      {held(*window)}" if seconds else note))


def _run_s(summary: dict) -> float:
    return (summary.get("timings") or {}).get("run_s") or summary["duration_s"]


PHASES = [("load", "load_s"), ("first req", "first_request_s"), ("run", "run_s"), ("export", "export_s"),
          ("judge", "judge_s"), ("store", "store_s"), ("commit", "commit_s"), ("CPU", "cpu_s"),
          ("run CPU", "run_cpu_s"), ("loop CPU", "loop_cpu_s"), ("claim wait", "claim_wait_s"), ("GC", "gc_s")]


def phase_table(cli) -> None:
    """Each evalui run's phases (s), then CPU per sample (ms): the whole process's, the run phase's,
    and the run phase's on the requests' event loop.
    judge, store (handing writes over) and commit (the writer thread) overlap the run phase."""
    print("  evalui phases (s)  " + "".join(f"{label:>11s}" for label, _ in PHASES)
          + "  CPU/sample  run CPU/sample  loop CPU/sample   wall")
    for attempt, (summary, wall, *_) in enumerate(cli, start=1):
        timings = summary.get("timings") or {}
        cells = "".join(f"{timings[key]:11.2f}" if timings.get(key) is not None else f"{'-':>11s}"
                        for _, key in PHASES)
        n = summary["total"] or 1

        def per_sample(key):
            return f"{timings[key] / n * 1000:.3f} ms" if timings.get(key) is not None else "-"

        print(f"    run {attempt}            {cells}  {per_sample('cpu_s'):>10s}  {per_sample('run_cpu_s'):>14s}"
              f"  {per_sample('loop_cpu_s'):>15s}  {wall:5.2f}")


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()
    print(f"engine ceiling (best of {REPEATS}; machine: {os.cpu_count()} cores, shared)")
    with tempfile.TemporaryDirectory() as folder:
        for name, categories, limit, concurrency, latency, target in chosen_scenarios():
            scenario(name, categories, limit, concurrency, latency, target, Path(folder))


if __name__ == "__main__":
    main()
