"""BFCL v4 in full: ``--category all`` (every leaderboard category: non-live, live, irrelevance and
relevance, multi-turn, memory and web search) against one scripted endpoint, in FC mode, with web
search replayed from a recording this script makes first; then ``bfcl evaluate`` on the exported
result files, whose per-entry verdicts and leaderboard CSVs must equal evalui's.

The endpoint (its own process, no latency) answers single-turn and multi-turn entries with their
gold calls, memory questions after storing every prereq turn and web questions after a search and a
fetch, with the gold answer except for every 7th question (a wrong one), so the scores are not all
100 %. The web is a local SerpAPI and page server (tests/bfcl_web_server.py), recorded while it runs
web_search_base and web_search_no_snippet; it is stopped before the full run, which replays.

Prints the requests, the run phase's wall time, this process's peak RSS, the overall score and the
comparison, with the load average (the machine is shared). Asserts nothing but the comparison.

Run: cd bench && ../.venv/bin/python bfcl_full_v4.py [--mode fc|prompt] [--concurrency 32] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import socket
import sys
import tempfile
import time
from pathlib import Path

from common import PeerProcess

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))  # the local web server and the bfcl evaluate helper the tests use

from bfcl_official_cli import bfcl_evaluate, official_verdicts  # noqa: E402
from bfcl_web_server import SERPAPI_KEY, FakeWeb  # noqa: E402

from evalui.benchmarks.bfcl.options import expand_categories  # noqa: E402
from evalui.benchmarks.bfcl.scoring.official import load_official  # noqa: E402
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL  # noqa: E402
from evalui.benchmarks.bfcl.spec import BfclOptions  # noqa: E402
from evalui.endpoint.settings import EndpointSettings  # noqa: E402
from evalui.run import lifecycle  # noqa: E402
from evalui.store.run_store import RunStore  # noqa: E402

MODELS = {"fc": "gpt-4o-2024-11-20-FC", "prompt": "gpt-4o-2024-11-20"}  # registered, OpenAI-style
WEB = ["web_search_base", "web_search_no_snippet"]
MEMORY = ["memory_kv", "memory_vector", "memory_rec_sum"]
PAGES = ("/page", "/latin", "/moved", "/gone")
MEMORY_NAMES = ("archival_memory_add", "memory_append")


def wrong_keys(keys) -> set[str]:
    return {key for index, key in enumerate(sorted(set(keys))) if index % 7 == 3}


def full_script(categories: list[str], pages: list[str], asked):
    """Made in the endpoint's process: one script for every category of the run; ``asked`` (a shared
    counter) counts the chat requests."""
    def make():
        from bfcl_eval import utils as bfcl_utils

        # A forked child holds the parent's file locks, which filelock refuses: bfcl makes new ones.
        bfcl_utils._FILE_LOCK_REGISTRY.clear()
        from evalui.benchmarks.bfcl.agentic.data import load_agentic_category
        from evalui.benchmarks.bfcl.scoring.single_turn import MULTI_TURN_CATEGORIES
        from support.bfcl_agentic_oracle import MemoryOracle, WebSearchOracle, question_key, web_question_key
        from support.bfcl_multi_turn_oracle import MultiTurnOracle
        from support.bfcl_oracle import BfclOracle

        agentic = set(MEMORY) | set(WEB)
        single = BfclOracle([c for c in categories if c not in agentic and c not in MULTI_TURN_CATEGORIES])
        multi = MultiTurnOracle([c for c in categories if c in MULTI_TURN_CATEGORIES])
        memory = MemoryOracle(MEMORY, wrong=wrong_keys(question_key(e.id) for e in load_agentic_category(MEMORY[0])))
        web_keys = (web_question_key(e.id) for e in load_agentic_category(WEB[0]))
        web = WebSearchOracle(WEB, pages, wrong=wrong_keys(web_keys))

        def script(body, n):
            with asked.get_lock():
                asked.value += 1
            offered = " ".join([t["function"]["name"] for t in body.get("tools") or []]
                               + [m.get("content") or "" for m in body["messages"] if m.get("role") == "system"])
            if any(name in offered for name in MEMORY_NAMES):
                return memory.reply(body)
            if "search_engine_query" in offered:
                return web.reply(body)
            if multi.entry_for(body) is not None:
                return multi.reply(body)
            return single.gold_reply(body)
        return script
    return make


def started_peer(make_script) -> PeerProcess:
    """The endpoint, once it listens: its oracles take a while to build on a busy machine."""
    peer = PeerProcess(make_script)
    deadline = time.monotonic() + 1800  # a bound that only catches a hang
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", peer.port), timeout=5).close()
            return peer
        except OSError:
            time.sleep(1)
    raise RuntimeError("the scripted endpoint never started")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def run(store, peer, mode: str, categories: list[str], exp_id: str, out: Path, concurrency: int, limit: int | None,
        **web) -> dict:
    settings = EndpointSettings(base_url=peer.base_url, model=MODELS[mode], api_key="sk-bench", timeout_s=600.0)
    # The web options are strings (a recording folder may come as a Path).
    options = BfclOptions(categories=categories, limit=limit, mode=mode, **{k: str(v) for k, v in web.items()})
    lifecycle.prepare(store, BFCL, options, settings, exp_id=exp_id, out=out)
    return lifecycle.execute(store, exp_id, settings, concurrency=concurrency)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("fc", "prompt"), default="fc")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--limit", type=int, help="at most N entries per category (a quick check of the script)")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    load_official()
    categories = expand_categories(["all"])
    print(f"BFCL v4 full (--category all: {len(categories)} categories), {args.mode} mode, C={args.concurrency}; "
          f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        os.environ["EVALUI_DATA_DIR"] = str(folder)
        store = RunStore(folder / "bench.sqlite")
        recording = folder / "web"
        with FakeWeb() as fake_web:
            os.environ.update(SERPAPI_API_KEY=SERPAPI_KEY, EVALUI_SERPAPI_URL=fake_web.url(""),
                              EVALUI_WEB_ALLOW_HOSTS=f"127.0.0.1:{fake_web.port}")
            pages = [fake_web.url(p) for p in PAGES]
            asked = multiprocessing.Value("q", 0)
            peer = started_peer(full_script(WEB, pages, asked))
            started = time.perf_counter()
            recorded = run(store, peer, args.mode, WEB, "record", folder / "record", args.concurrency, args.limit,
                           web_search="serpapi", web_record=recording)
            print(f"  web recording: {len(list(recording.rglob('*.json')))} answers, "
                  f"{time.perf_counter() - started:.1f} s, accuracy {recorded['accuracy']:.3f}")
        for name in ("SERPAPI_API_KEY", "EVALUI_SERPAPI_URL", "EVALUI_WEB_ALLOW_HOSTS"):
            os.environ.pop(name)  # the web server is gone: the full run replays
        peer.stop()
        asked_before, asked.value = asked.value, 0
        peer = started_peer(full_script(categories, pages, asked))
        started = time.perf_counter()
        summary = run(store, peer, args.mode, ["all"], "full", folder / "full", args.concurrency, args.limit,
                      web_replay=recording)
        wall = time.perf_counter() - started
        peer.stop()
        requests = asked.value
        load = os.getloadavg()
        board = summary["leaderboard"]
        print(f"  full run: {summary['total']} samples, {requests} requests, run phase {summary['duration_s']:.1f} s "
              f"(with exports {wall:.1f} s), {requests / summary['duration_s']:.0f} requests/s, errors "
              f"{summary['errors']}, peak RSS {peak_rss_mb():.0f} MB; load average after: "
              f"{' '.join(f'{x:.2f}' for x in load)} (recording run: {asked_before} requests)")
        print(f"  overall {board['overall']:.4f}; " + ", ".join(
            f"{k} {v['accuracy']:.4f}" for k, v in board.items() if isinstance(v, dict)))

        started = time.perf_counter()
        run_dir = Path(summary["out_dir"])
        score_dir = bfcl_evaluate(folder / "official", MODELS[args.mode],
                                  [Path(p) for p in summary["result_files"].values()])
        stored = {s.sample_id: s for s in store.samples("full")}
        disagree = []
        for category in summary["result_files"]:
            ids = [i for i, s in stored.items() if s.group == category]
            official = official_verdicts(score_dir, category, ids)
            disagree += [i for i in ids if official[i] != stored[i].correct]
        from evalui.benchmarks.bfcl.leaderboard_csv import CSV_FILES

        csv_equal = {name: (run_dir / name).read_text() == (score_dir / name).read_text() for name in CSV_FILES}
        overall_row = (score_dir / "data_overall.csv").read_text().splitlines()[1].split(",")
        print(f"  bfcl evaluate ({time.perf_counter() - started:.0f} s): {len(stored) - len(disagree)}/{len(stored)} "
              f"verdicts equal; CSVs equal: {json.dumps(csv_equal)}; its data_overall.csv row: "
              f"{','.join(overall_row[:8])}")
        store.close()
        if disagree or not all(csv_equal.values()):
            raise SystemExit(f"differs from bfcl evaluate: {disagree[:20]} {csv_equal}")


if __name__ == "__main__":
    main()
