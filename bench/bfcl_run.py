"""BFCL run engine throughput against a scripted endpoint with 100 ms of latency per request.

400 simple_python samples at concurrency 1 and 32, against the ideal N·L/C.
Target at C = 32: at most 1.2 × the ideal. (Crash-and-resume figures: bench/reliability.py.)

Run: cd bench && ../.venv/bin/python bfcl_run.py
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from common import PeerProcess, gold_script

from evalui.benchmarks.bfcl.scoring.official import load_official
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.endpoint.settings import EndpointSettings
from evalui.run import lifecycle
from evalui.store.run_store import RunStore

N = 400
LATENCY_S = 0.1


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    load_official()
    peer = PeerProcess(lambda: gold_script(LATENCY_S))
    with tempfile.TemporaryDirectory() as folder:
        os.environ["EVALUI_DATA_DIR"] = folder  # the shared plotly.js copy goes there, not into bench/
        store = RunStore(Path(folder) / "bench.sqlite")
        settings = EndpointSettings(base_url=peer.base_url, model="bench", api_key="sk-bench")
        print(f"throughput: {N} simple_python samples, {LATENCY_S * 1000:.0f} ms per request")
        for concurrency in (1, 32):
            exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=N, mode="fc"),
                                       settings, exp_id=f"c{concurrency}", out=Path(folder) / f"c{concurrency}")
            summary = lifecycle.execute(store, exp_id, settings, concurrency=concurrency)
            ideal = N * LATENCY_S / concurrency
            print(f"  C={concurrency:<3} wall {summary['duration_s']:7.2f} s   ideal {ideal:6.2f} s   "
                  f"ratio {summary['duration_s'] / ideal:5.2f}   correct {summary['correct']}/{summary['total']}")
        store.close()
    peer.stop()


if __name__ == "__main__":
    main()
