"""BFCL multi-turn: all 800 entries (four categories of 200) against a scripted endpoint that
answers every turn with its gold calls after 20 ms, at concurrency 32, in FC mode.

Entries of different categories often start with the same messages, so each category gets its own
scripted endpoint (in its own process) and its own run; the figures are per run and in total.
Prints the run phase's wall time, requests, and the process's peak memory (max RSS). Asserts nothing.

Run: cd bench && ../.venv/bin/python bfcl_multi_turn.py
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from pathlib import Path

from common import PeerProcess

from evalui.benchmarks.bfcl.scoring.official import load_official
from evalui.benchmarks.bfcl.scoring.single_turn import MULTI_TURN_CATEGORIES
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.endpoint.settings import EndpointSettings
from evalui.run import lifecycle
from evalui.store.run_store import RunStore

LATENCY_S = 0.02
CONCURRENCY = 32


def multi_turn_script(category: str, latency_s: float):
    def make():
        from support.bfcl_multi_turn_oracle import MultiTurnOracle

        oracle = MultiTurnOracle([category])

        def script(body, n):
            reply = oracle.reply(body)
            reply.delay_s = latency_s
            return reply
        return script
    return make


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    load_official()
    from evalui.benchmarks.bfcl.data import load_category

    for category in MULTI_TURN_CATEGORIES:
        load_category(category)  # the data, as every run has it after its first sample
    print(f"BFCL multi-turn: 4 x 200 entries, FC mode, C={CONCURRENCY}, {LATENCY_S * 1000:.0f} ms per request")
    print(f"  peak RSS before the runs (bfcl-eval and the data loaded): {peak_rss_mb():.0f} MB")
    total_wall = total_requests = total_correct = total = 0
    with tempfile.TemporaryDirectory() as folder:
        os.environ["EVALUI_DATA_DIR"] = folder
        store = RunStore(Path(folder) / "bench.sqlite")
        for category in MULTI_TURN_CATEGORIES:
            peer = PeerProcess(multi_turn_script(category, LATENCY_S), log_path=Path(folder) / f"{category}.log")
            settings = EndpointSettings(base_url=peer.base_url, model="bench", api_key="sk-bench")
            exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[category], limit=None, mode="fc"), settings,
                                       exp_id=category, out=Path(folder) / category)
            started = time.perf_counter()
            summary = lifecycle.execute(store, exp_id, settings, concurrency=CONCURRENCY)
            wall = time.perf_counter() - started
            requests = len(peer.stop())
            ideal = requests * LATENCY_S / CONCURRENCY
            print(f"  {category:<25} run phase {summary['duration_s']:6.2f} s (with exports {wall:6.2f} s)  "
                  f"requests {requests:5d}  ideal {ideal:5.2f} s  correct {summary['correct']}/{summary['total']}")
            total_wall += summary["duration_s"]
            total_requests += requests
            total_correct += summary["correct"]
            total += summary["total"]
        store.close()
    print(f"  all 800: run phases {total_wall:.2f} s, {total_requests} requests "
          f"(ideal {total_requests * LATENCY_S / CONCURRENCY:.2f} s), correct {total_correct}/{total}, "
          f"peak RSS {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
