"""The run store at scale: 1, 8, 10 and 100 stored full single-turn BFCL runs (3,641 samples each).

The runs are written through the store's own write API (add_samples, record_rollout,
record_judgement, record_error, set_status), one group commit as a real run does, with the contents
a real run stores: each entry's request as evalui builds it from bfcl-eval's data (``--mode``), its
gold reply (every 6th one wrong, every 97th an endpoint error), the one-step trajectory, the
prediction and a verdict holding its scanned findings. No HTTP: this measures the store.

Printed at each size (medians of ``--repeats``; the machine is shared, so the load average too):
- listing: ``evalui.ops.history.runs_frame`` (the Runs tab and /runs_list read it);
- compare: ``evalui.reports.comparison.compare_runs`` of two runs;
- page: ``store.sample_page`` (50 light rows), and one filtered (wrong answers);
- transcript: ``store.sample`` of one sample, on a freshly opened store (no part in memory);
- open run: the viewer's first screen of a 3,641-sample run on a freshly opened store (nothing kept in
  memory): its rows and filter choices, the sorted list, the first sample's pane and the labels'
  precision, as the page reads them (``data.listing``); "open page" is the same screen read one page
  at a time (``data.choices`` and ``data.page``);
- first search: a full-text search of the run on a freshly opened store (the index is written with the
  samples, so nothing is built), of a word most samples hold ("the") and of a rarer one ("weather");
- bytes per sample: of the sample rows (every column's stored text), and of the whole file.

Targets (issue 26, 8 runs, about 29,000 samples): listing <= 1 s and <= 1.5x its one-run time,
compare <= 1 s, transcript <= 0.5 s. Issue 38: open run <= 0.5 s at 8 runs and <= 0.6 s at 100, a
first search <= 0.5 s.

Run: .venv/bin/python bench/store_scale.py [--sizes 1,8,10,100] [--repeats 5] [--mode fc|prompt]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.gold import fc_arguments, gold_calls, prompt_text
from evalui.benchmarks.bfcl.request import build_request, result_from_response, sanitise_name
from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES, RELEVANCE_CATEGORIES, language_of
from evalui.store.run_store import RunStore

WRONG_EVERY, ERROR_EVERY = 6, 97


def reply(entry, mode: str) -> dict:
    """The gold answer as the client stores a reply: {"text", "tool_calls"}."""
    if entry.category in RELEVANCE_CATEGORIES:
        if "irrelevance" in entry.category or not entry.functions:
            return {"text": "None of the functions can answer this.", "tool_calls": []}
        calls = [(entry.functions[0]["name"], {})]
    else:
        calls = gold_calls(entry.possible_answer)
    language = language_of(entry.category)
    if mode == "fc":
        return {"text": "", "tool_calls": [{"name": sanitise_name(n), "arguments": fc_arguments(a, language)}
                                           for n, a in calls]}
    return {"text": prompt_text(calls, language), "tool_calls": []}


def entries(mode: str) -> list[tuple]:
    """(sample_id, category, request, reply) of every single-turn entry."""
    found = []
    for category in CATEGORIES:
        for entry in load_category(category):
            found.append((entry.id, category, build_request(entry, mode), reply(entry, mode)))
    return found


def write_run(store: RunStore, exp_id: str, rows: list[tuple], mode: str, seed: int) -> None:
    store.create_or_get_experiment(exp_id, "bfcl", f"model-{seed}", "bench.local", {"options": {"mode": mode}})
    store.add_samples(exp_id, [(sid, category, {"category": category}) for sid, category, _, _ in rows])
    correct = 0
    for k, (sid, _category, request, answer) in enumerate(rows):
        tokens = 40 + len(json.dumps(request)) // 4
        if (k + seed) % ERROR_EVERY == 0:
            store.record_error(exp_id, sid, request=request, error="HTTP 500: upstream timed out", attempts=3,
                               wait=False)
            continue
        latency = 0.2 + ((k * 7 + seed) % 50) / 100
        step = {"messages": request["messages"], "text": answer["text"], "tool_calls": answer["tool_calls"],
                "tool_results": [], "prompt_tokens": tokens, "completion_tokens": 20, "latency_s": latency,
                "attempts": 1, "note": "", "finish_reason": "tool_calls" if answer["tool_calls"] else "stop"}
        ticket = store.record_rollout(exp_id, sid, request=request, response=answer, latency_s=latency,
                                      prompt_tokens=tokens, completion_tokens=20, attempts=1, trajectory=[step],
                                      wait=False)
        right = (k + seed) % WRONG_EVERY != 0
        correct += right
        verdict = {"correct": right, "error_type": None if right else "simple_function_checker:wrong_func_name",
                   "error": "" if right else "Function name 'x' not found.", "official_error_type": None,
                   "findings": []}
        store.record_judgement(exp_id, sid, prediction=result_from_response(answer, mode), correct=right,
                               verdict=verdict, wait=False, after=ticket)
    store.flush()
    store.set_status(exp_id, "finished", summary={"accuracy": correct / len(rows), "total": len(rows),
                                                  "correct": correct, "duration_s": 100.0 + seed})


def median_s(action, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def row_bytes(path: Path) -> float:
    """Mean bytes of a sample row: every column's stored text or number, as SQLite measures it."""
    with sqlite3.connect(path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(samples)")]
        total, count = db.execute("SELECT SUM(" + " + ".join(f"COALESCE(LENGTH(CAST({c} AS BLOB)), 0)" for c in columns)
                                  + "), COUNT(*) FROM samples").fetchone()
    return total / count


def open_run(store: RunStore, exp_id: str) -> None:
    """The viewer's first screen as its page reads it (evalui.ui.viewer.page.open_run)."""
    from evalui.viewer import data, rows
    from evalui.viewer import findings as labelling

    rows.filter_choices(data.run_rows(store, exp_id))
    _, shown = data.listing(store, exp_id)
    data.pane(store, exp_id, shown[0]["id"])
    labelling.precision(store, exp_id)


def open_page(store: RunStore, exp_id: str) -> None:
    """The same screen read one page at a time."""
    from evalui.viewer import data
    from evalui.viewer import findings as labelling

    data.choices(store, exp_id)
    first = data.page(store, exp_id, number=None)
    data.pane(store, exp_id, first.rows[0]["id"])
    labelling.precision(store, exp_id)


def search(store: RunStore, exp_id: str, word: str) -> None:
    from evalui.viewer import data

    assert data.listing(store, exp_id, text=word)[1]


def fresh_median(path: Path, exp_id: str, action, repeats: int) -> float:
    """Median seconds of ``action(store, exp_id)`` on a freshly opened store each time."""
    times = []
    for _ in range(repeats):
        store = RunStore(path)
        start = time.perf_counter()
        action(store, exp_id)
        times.append(time.perf_counter() - start)
        store.close()
    return statistics.median(times)


def measure(path: Path, runs: list[str], repeats: int, sample_id: str) -> dict:
    from evalui.ops.history import runs_frame
    from evalui.reports.comparison import compare_runs

    with sqlite3.connect(path) as db:  # as a long-lived store is: its writes checkpointed into the file
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store = RunStore(path)
    figures = {
        "listing_s": median_s(lambda: runs_frame(store), repeats),
        "compare_s": median_s(lambda: compare_runs(store, runs[0], runs[-1]) if len(runs) > 1
                              else compare_runs(store, runs[0], runs[0]), repeats),
        "page_s": median_s(lambda: store.sample_page(runs[-1], 1000, 50), repeats),
        "wrong_page_s": median_s(lambda: store.sample_page(runs[-1], 0, 50, verdict="wrong"), repeats),
    }
    store.close()
    transcripts = []
    for _ in range(repeats):  # a fresh store each time: its parts are read from the file, not memory
        fresh = RunStore(path)
        start = time.perf_counter()
        assert fresh.sample(runs[-1], sample_id) is not None
        transcripts.append(time.perf_counter() - start)
        fresh.close()
    figures["transcript_s"] = statistics.median(transcripts)
    for name, action in (("open_s", open_run), ("open_page_s", open_page),
                         ("search_the_s", lambda store, run: search(store, run, "the")),
                         ("search_s", lambda store, run: search(store, run, "weather"))):
        figures[name] = fresh_median(path, runs[-1], action, repeats)
    samples = 3641 * len(runs)
    figures["row_bytes"] = row_bytes(path)
    with sqlite3.connect(path) as db:  # the file holds every write: none left in the WAL
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    figures["file_bytes"] = path.stat().st_size / samples
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,8,10,100")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--mode", choices=("fc", "prompt"), default="fc")
    parser.add_argument("--keep", help="a folder for the store (kept); default: a temporary one")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    folder = Path(args.keep or tempfile.mkdtemp(prefix="evalui-store-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["EVALUI_DATA_DIR"] = str(folder)
    path = folder / "scale.sqlite"
    rows = entries(args.mode)
    assert len(rows) == 3641, len(rows)
    store = RunStore(path)
    runs: list[str] = []
    print(f"store scale, BFCL single-turn ({args.mode} mode), {len(rows)} samples per run; medians of {args.repeats}")
    print(f"{'runs':>5} {'samples':>8} {'write s/run':>11} {'listing s':>9} {'compare s':>9} {'page s':>7} "
          f"{'wrong page s':>12} {'transcript s':>12} {'open run s':>10} {'open page s':>11} {'search s':>8} "
          f"{'search the s':>12} {'row B/sample':>12} {'file B/sample':>13}  load")
    first_listing = None
    for size in sizes:
        start = time.perf_counter()
        added = 0
        while len(runs) < size:
            runs.append(f"run-{len(runs):03d}")
            write_run(store, runs[-1], rows, args.mode, len(runs))
            added += 1
        write_s = (time.perf_counter() - start) / max(added, 1)
        store.close()
        figures = measure(path, runs, args.repeats, rows[len(rows) // 2][0])
        store = RunStore(path)
        first_listing = first_listing or figures["listing_s"]
        print(f"{size:>5} {size * len(rows):>8} {write_s:>11.1f} {figures['listing_s']:>9.3f} {figures['compare_s']:>9.3f} "
              f"{figures['page_s']:>7.4f} {figures['wrong_page_s']:>12.4f} {figures['transcript_s']:>12.4f} "
              f"{figures['open_s']:>10.3f} {figures['open_page_s']:>11.3f} {figures['search_s']:>8.3f} "
              f"{figures['search_the_s']:>12.3f} "
              f"{figures['row_bytes']:>12.0f} {figures['file_bytes']:>13.0f}  {os.getloadavg()[0]:.1f}"
              f"   (listing {figures['listing_s'] / first_listing:.2f}x one run)", flush=True)
    store.close()


if __name__ == "__main__":
    main()
