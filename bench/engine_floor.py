"""The floor under the 10 ms run phase: the bare client doing only what evalui must do per sample.

engine_ceiling.py compares the whole engine with a bare aiohttp client. This benchmark asks what
part of the gap is evalui's engine at all. The same bare client (the same bodies, endpoint and
concurrency, 3,641 single-turn samples at C = 64 against a 10 ms endpoint) also does, for each
reply, only the work that no engine can skip:

1. ``bare``: the requests alone (the ceiling);
2. ``+ checker``: bfcl-eval's official AST checker on the reply, as evalui's BFCL task calls it
   (``judge_entry``), on the loop;
3. ``+ checker + store``: and the answer and its verdict kept through evalui's run store as the
   engine keeps them (the requests packed ahead, ``record_rollout`` and ``record_judgement`` folded
   into one write, committed by the store's writer thread; the run phase ends at the last commit);
4. ``+ checker + store, no search index``: the same, with the search documents' writes (SQLite
   FTS5) left out; the documents are still made on the loop;
5. ``evalui``: the real ``evalui bfcl run`` (a fresh process; its ``run_s``).

Rows 1-4 run in this process, in an order that rotates between rounds, each after a full
collection and with the collector set as the command sets it. For each row: the run phase (best
and median), its ratio to the bare client of the same round (median and best), the CPU per sample
of the whole process and of the thread that runs the event loop, and for the store rows the
loop's CPU inside the store's calls. Nothing is asserted.

Run: cd bench && ../.venv/bin/python engine_floor.py   (EVALUI_BENCH_REPEATS, default 5)
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import aiohttp
from engine_ceiling import evalui_cli, request_bodies
from fast_peer import FastPeer

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.request import build_request
from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.benchmarks.bfcl.task import judge_entry
from evalui.endpoint.completion import parse_completion
from evalui.endpoint.settings import EndpointSettings
from evalui.run import heap, lifecycle
from evalui.run.trajectory import single_reply, stored_steps
from evalui.store import run_store
from evalui.store.parts import pack_ahead

REPEATS = int(os.environ.get("EVALUI_BENCH_REPEATS", "5"))
CONCURRENCY, LATENCY_S = 64, 0.010
ROWS = ["bare", "+ checker", "+ checker + store", "+ checker + store, no search index", "evalui"]


class Floor:
    """The samples, their bodies and requests, and a store to keep them in."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.entries = [entry for category in CATEGORIES for entry in load_category(category)]
        self.bodies = request_bodies(list(CATEGORIES), None)
        self.requests = [build_request(entry, "fc") for entry in self.entries]
        self.store: run_store.RunStore | None = None
        self.store_loop_cpu = 0.0

    def fresh_run(self, tag: str) -> tuple[str, list]:
        """A registered run with every sample, joined as a worker; its requests packed ahead."""
        os.environ["EVALUI_DATA_DIR"] = str(self.folder / tag)
        self.store = run_store.RunStore()
        exp_id = lifecycle.prepare(self.store, BFCL, BfclOptions(categories=list(CATEGORIES), mode="fc"),
                                   EndpointSettings(base_url="http://127.0.0.1:9/v1", model="bench"), exp_id=tag)
        self.store.join_run(exp_id, f"floor:{os.getpid()}")
        return exp_id, [pack_ahead(request) for request in self.requests]

    async def run(self, url: str, judge: bool, exp_id: str | None, packed: list) -> int:
        gate = asyncio.Semaphore(CONCURRENCY)
        store = self.store
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONCURRENCY)) as session:
            async def one(i: int) -> bool:
                async with gate:
                    async with session.post(url, data=self.bodies[i], headers={"content-type": "application/json"}) as reply:
                        data = json.loads(await reply.read())
                if not judge:
                    return True
                entry = self.entries[i]
                result = single_reply(parse_completion(data, 0.01, 1), self.requests[i]["messages"])
                prediction, correct, verdict = judge_entry(entry.category, entry.id, result.output, "fc")
                if exp_id is not None and store is not None:
                    began = time.thread_time()
                    ticket = store.record_rollout(exp_id, entry.id, request=packed[i], response=result.output,
                                                  latency_s=result.wall_s, prompt_tokens=result.prompt_tokens,
                                                  completion_tokens=result.completion_tokens, attempts=1,
                                                  trajectory=stored_steps(result.steps), wait=False)
                    store.record_judgement(exp_id, entry.id, prediction=prediction, correct=correct, verdict=verdict,
                                           wait=False, after=ticket)
                    self.store_loop_cpu += time.thread_time() - began
                return bool(correct)

            return sum(await asyncio.gather(*(one(i) for i in range(len(self.bodies)))))


def no_index(dialect, exp_id, sample_id, part, body, **options):
    # A keyed no-op in place of a search document's write (run once per group of writes).
    return "SELECT 1", (), ("floor", part)


def measure_in_process(floor: Floor, url: str, row: str, tag: str) -> dict:
    keeps = "store" in row
    exp_id, packed = floor.fresh_run(tag) if keeps else (None, [])
    index_statement = run_store.index_statement
    if "no search index" in row:
        run_store.index_statement = no_index
    floor.store_loop_cpu = 0.0
    gc.collect()
    try:
        with heap.fewer_collections():
            started, cpu, loop_cpu = time.perf_counter(), time.process_time(), time.thread_time()
            correct = asyncio.run(floor.run(url, row != "bare", exp_id, packed))
            if floor.store is not None and keeps:
                floor.store.flush()
            return {"run_s": time.perf_counter() - started, "cpu_s": time.process_time() - cpu,
                    "loop_cpu_s": time.thread_time() - loop_cpu, "correct": correct,
                    "store_loop_cpu_s": floor.store_loop_cpu if keeps else None}
    finally:
        run_store.index_statement = index_statement
        if floor.store is not None:
            floor.store.close()
            floor.store = None


def measure_cli(peer: FastPeer, folder: Path, tag: str) -> dict:
    summary, _ = evalui_cli(peer, list(CATEGORIES), None, CONCURRENCY, folder, tag)
    timings = summary["timings"]
    return {"run_s": timings["run_s"], "cpu_s": timings["run_cpu_s"], "loop_cpu_s": timings.get("loop_cpu_s"),
            "correct": summary["correct"], "store_loop_cpu_s": None}


def report(figures: dict[str, list[dict]], samples: int) -> None:
    bare = [figure["run_s"] for figure in figures["bare"]]
    print(f"{'':38s}{'best':>7s}{'median':>8s}  {'x bare (median, best)':>22s}  {'CPU/sample':>11s}"
          f"  {'loop CPU/sample':>15s}  {'store calls':>11s}  correct")
    for row in ROWS:
        runs = figures[row]
        ratios = [figure["run_s"] / b for figure, b in zip(runs, bare)]

        def per_sample(key: str) -> str:
            values = [figure[key] for figure in runs if figure[key] is not None]
            return f"{statistics.median(values) / samples * 1000:.3f} ms" if values else "-"

        print(f"  {row:36s}{min(f['run_s'] for f in runs):7.2f}{statistics.median(f['run_s'] for f in runs):8.2f}"
              f"  {statistics.median(ratios):10.2f} {min(ratios):11.2f}  {per_sample('cpu_s'):>11s}"
              f"  {per_sample('loop_cpu_s'):>15s}  {per_sample('store_loop_cpu_s'):>11s}  {runs[0]['correct']}")


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    print(f"engine floor: 3,641 single-turn, C={CONCURRENCY}, {LATENCY_S * 1000:.0f} ms "
          f"(rounds: {REPEATS}; machine: {os.cpu_count()} cores, shared)")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        floor = Floor(folder)
        judge_entry(floor.entries[0].category, floor.entries[0].id, {"text": "", "tool_calls": []}, "fc")  # loads the checker
        peer = FastPeer(list(CATEGORIES), LATENCY_S, folder / "peer.log")
        figures: dict[str, list[dict]] = {row: [] for row in ROWS}
        try:
            url = peer.base_url + "/chat/completions"
            for round_ in range(REPEATS):
                order = ROWS[round_ % len(ROWS):] + ROWS[:round_ % len(ROWS)]
                results = {}
                for row in order:
                    tag = f"r{round_}-{ROWS.index(row)}"
                    results[row] = measure_cli(peer, folder, tag) if row == "evalui" \
                        else measure_in_process(floor, url, row, tag)
                for row in ROWS:
                    figures[row].append(results[row])
        finally:
            peer.stop()
        report(figures, len(floor.bodies))


if __name__ == "__main__":
    main()
