"""The dashboard under load: how much slower a BFCL run started from the dashboard gets while 20
anonymous pollers read the run lists and the viewer (printed, never asserted).

Issue #35 item 8: 20 pollers of /runs_list and /viewer_samples, on a stored 3,641-sample run, made a
run started from the dashboard 4.2x slower. There the pollers shared both cores with the server;
here they are kept apart, so what is measured is what serving them costs the server itself:

- the dashboard is ``python app.py`` in a subprocess (as deployed), pinned to one core, on a data
  folder holding one stored full single-turn BFCL run (3,641 samples, written as
  bench/store_scale.py writes them);
- its run is started through the BFCL tab's own named endpoint, /bfcl_start, against the gold
  endpoint of bench/fast_peer.py, and timed from the call to the run's summary in the store;
- the pollers are one process of ``--pollers`` threads (gradio_client, as an API caller polls),
  pinned to the other core; each calls /runs_list and /viewer_samples of the stored run in turn,
  back to back, until the run ends, ``--poll-s`` passes or it made ``--max-requests`` calls.
  This bench process and the peer share the pollers' core; the pollers run at a lower priority
  there, since the peer stands in for a model server on another machine and must not be slowed by
  them (the peer's own added delay is printed, alone and under load, to show it was not).

Alone and under load alternate, ``--repeats`` times each; the medians are printed with their ratio
(target: under load <= 1.5x alone), and the pollers' median latency per endpoint and request count.

Run: .venv/bin/python bench/dashboard_load.py [--repeats 3] [--pollers 20]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import free_port
from fast_peer import FastPeer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # tests/app_client.py: gradio_client with one TLS context

STORED_RUN = "stored-3641"
ENDPOINTS = ("/runs_list", "/viewer_samples")
PAGES = 73  # 3,641 rows at 50 a page: the pollers page through the stored run
START_TIMEOUT_S = 180
RUN_TIMEOUT_S = 900
POLLER_NICE = 10


def store_big_run(folder: Path) -> None:
    """One finished full single-turn BFCL run in the data folder's store, as a real run stores it."""
    from store_scale import entries, write_run

    from evalui.store.run_store import RunStore

    rows = entries("fc")
    assert len(rows) == 3641, len(rows)
    store = RunStore(folder / "evalui.sqlite")
    try:
        write_run(store, STORED_RUN, rows, "fc", 1)
    finally:
        store.close()


class Dashboard:
    """``python app.py`` on a free port, its every thread on ``core``."""

    def __init__(self, data: Path, core: int, log: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = dict(os.environ, EVALUI_DATA_DIR=str(data), GRADIO_ANALYTICS_ENABLED="False", NO_PROXY="127.0.0.1")
        for name in ("EVALUI_ALLOWED_USERS", "SPACE_ID", "EVALUI_SHARED", "OPENAI_BASE_URL", "EVALUI_HUB_SYNC"):
            env.pop(name, None)
        self.log = log.open("w")
        # Pinned before exec, so every thread the server starts later inherits the one core.
        self.process = subprocess.Popen([sys.executable, str(ROOT / "app.py"), "--host", "127.0.0.1", "--port",
                                         str(self.port)], cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                        preexec_fn=lambda: os.sched_setaffinity(0, {core}))
        self._wait_ready()

    def _wait_ready(self) -> None:
        import httpx

        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the dashboard exited ({self.process.returncode}); see {self.log.name}")
            try:
                if httpx.get(self.url, timeout=5, trust_env=False).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"the dashboard did not answer within {START_TIMEOUT_S} s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)
        self.log.close()


def run_state(database: Path, exp_id: str) -> tuple[str | None, dict | None]:
    """(status, summary) of a run, read straight from the store's file: cheap, and no request to the server."""
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as db:
            row = db.execute("SELECT status, summary FROM experiments WHERE exp_id = ?", (exp_id,)).fetchone()
    except sqlite3.OperationalError:
        return None, None
    if row is None:
        return None, None
    return row[0], json.loads(row[1]) if row[1] else None


def timed_run(client, peer: FastPeer, database: Path, exp_id: str, args) -> tuple[float, float | None]:
    """Start a BFCL run through /bfcl_start and wait for its exports; (wall seconds from the call to
    its summary in the store, the run phase the dashboard measured itself)."""
    # The BFCL tab's inputs: endpoint (URL, model, key, temperature, max tokens, timeout), categories,
    # limit, mode, concurrency, run id, epochs, budget; any the tab has since added after them, empty.
    given = [peer.base_url, "bench", "sk-bench", 0.0, 64, 60, args.categories.split(","), args.limit, "fc",
             args.concurrency, exp_id, 1, 0]
    wanted = client.view_api(print_info=False, return_format="dict")["named_endpoints"]["/bfcl_start"]["parameters"]
    given += [p.get("parameter_default") for p in wanted[len(given):]]
    started = time.monotonic()
    outputs = client.predict(*given, api_name="/bfcl_start")
    deadline = started + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        status, summary = run_state(database, exp_id)
        if summary is not None or status in ("failed", "cancelled"):
            if status != "finished":
                raise RuntimeError(f"run {exp_id} ended {status}")
            return time.monotonic() - started, summary.get("duration_s")
        if status is None and time.monotonic() - started > 30:
            raise RuntimeError(f"run {exp_id} was not started: {json.dumps(outputs, default=str)[:500]}")
        time.sleep(0.1)
    raise RuntimeError(f"run {exp_id} did not end within {RUN_TIMEOUT_S} s")


def _poll(client, stop, until: float, budget: list, latencies: dict, errors: list, index: int) -> None:
    calls = 0
    while not stop.is_set() and time.monotonic() < until:
        with budget[1]:
            if budget[0] <= 0:
                return
            budget[0] -= 1
        endpoint = ENDPOINTS[calls % 2]
        args = () if endpoint == "/runs_list" else (STORED_RUN, "all", "all", "all", "all", "", "position", False,
                                                    (index + calls // 2) % PAGES)
        began = time.monotonic()
        try:
            client.predict(*args, api_name=endpoint)
            latencies[endpoint].append(time.monotonic() - began)
        except Exception as exc:  # counted and shown: an error is a figure here, not a crash
            errors.append(f"{endpoint}: {type(exc).__name__}: {str(exc)[:200]}")
        calls += 1


def pollers(url: str, count: int, core: int, ready, go, stop, seconds: float, max_requests: int, results) -> None:
    """The pollers' process: ``count`` threads on ``core``, at a lower priority than the peer beside them."""
    os.sched_setaffinity(0, {core})
    os.nice(POLLER_NICE)
    from app_client import app_client

    # Each client fetches and parses the app's config, and its first calls open its session on the
    # server: done before the run, as for pollers that were polling already when it started.
    clients = [app_client(url, verbose=False) for _ in range(count)]
    for client in clients:
        client.predict(api_name="/runs_list")
        client.predict(STORED_RUN, api_name="/viewer_samples")
    ready.set()
    go.wait(START_TIMEOUT_S)
    latencies: dict[str, list[float]] = {e: [] for e in ENDPOINTS}
    errors: list[str] = []
    budget = [max_requests, threading.Lock()]
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=_poll, args=(client, stop, until, budget, latencies, errors, i),
                                daemon=True) for i, client in enumerate(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, until - time.monotonic()) + 120)
    results.put({"latencies": latencies, "errors": errors})


class Pollers:
    """The pollers in a process of their own (spawned: nothing of this process's threads or store comes along)."""

    def __init__(self, url: str, args, core: int):
        context = multiprocessing.get_context("spawn")
        self.ready, self.go, self.stop_event = context.Event(), context.Event(), context.Event()
        self.results = context.Queue()
        self.process = context.Process(target=pollers, args=(url, args.pollers, core, self.ready, self.go,
                                                             self.stop_event, args.poll_s, args.max_requests,
                                                             self.results), daemon=True)
        self.process.start()
        if not self.ready.wait(START_TIMEOUT_S):
            raise RuntimeError("the pollers did not start")

    def start(self) -> None:
        self.go.set()

    def stop(self) -> dict:
        self.stop_event.set()
        try:
            found = self.results.get(timeout=300)
        finally:
            self.process.join(30)
            if self.process.is_alive():
                self.process.terminate()
        return found


def peer_delay(log, start: float, end: float, latency: float) -> float:
    """Median seconds the peer took beyond its scripted latency, for the requests of [start, end]."""
    extra = [done - arrival - latency for arrival, done, _ in log if start <= arrival <= end]
    return statistics.median(extra) if extra else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pollers", type=int, default=20)
    parser.add_argument("--categories", default="simple_python,multiple,parallel,parallel_multiple")
    parser.add_argument("--limit", type=int, default=0, help="samples per category (0: all)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.05, help="the peer's seconds per answer")
    parser.add_argument("--poll-s", type=float, default=300, help="the most a poller polls, in seconds")
    parser.add_argument("--max-requests", type=int, default=100_000, help="the most the pollers send in all")
    parser.add_argument("--keep", help="a folder for the data and the server's log (kept); default: a temporary one")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        raise SystemExit("needs two cores: one for the dashboard, one for the pollers")
    server_core, poller_core = cores[0], cores[1]
    os.sched_setaffinity(0, {poller_core})  # this process and the peer it forks stay off the server's core
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    if args.keep:
        measure(args, Path(args.keep), server_core, poller_core)
        return
    # Removed afterwards: an evalui-* folder left in the temp folder fails the tests' check for leftovers.
    with tempfile.TemporaryDirectory(prefix="evalui-dashboard-load-") as name:
        measure(args, Path(name), server_core, poller_core)


def measure(args, folder: Path, server_core: int, poller_core: int) -> None:
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    database = data / "evalui.sqlite"
    if run_state(database, STORED_RUN)[1] is None:
        began = time.monotonic()
        store_big_run(data)
        print(f"stored {STORED_RUN} (3,641 samples) in {time.monotonic() - began:.0f} s", flush=True)
    from app_client import app_client

    peer = FastPeer(args.categories.split(","), args.latency, folder / "peer.log")
    dashboard = Dashboard(data, server_core, folder / "dashboard.log")
    alone: list[tuple[float, float, tuple]] = []
    loaded: list[tuple[float, float, tuple]] = []
    polled: list[dict] = []
    tag = f"{int(time.time())}"
    try:
        client = app_client(dashboard.url, verbose=False)
        timed_run(client, peer, database, f"warm-{tag}", argparse.Namespace(**{**vars(args), "limit": 2}))
        for repeat in range(args.repeats):
            began = time.monotonic()
            wall, phase = timed_run(client, peer, database, f"alone-{tag}-{repeat}", args)
            alone.append((wall, phase, (began, time.monotonic())))
            print(f"repeat {repeat}: alone {wall:.1f} s (run phase {phase:.1f} s)", flush=True)
            crowd = Pollers(dashboard.url, args, poller_core)
            try:
                crowd.start()
                began = time.monotonic()
                wall, phase = timed_run(client, peer, database, f"loaded-{tag}-{repeat}", args)
                loaded.append((wall, phase, (began, time.monotonic())))
            finally:
                polled.append(crowd.stop())
            print(f"repeat {repeat}: under load {wall:.1f} s (run phase {phase:.1f} s), "
                  f"{sum(len(v) for v in polled[-1]['latencies'].values())} poller requests, "
                  f"{len(polled[-1]['errors'])} errors", flush=True)
    finally:
        dashboard.stop()
        log = peer.stop()
    report(args, alone, loaded, polled, log)


def report(args, alone, loaded, polled, log) -> None:
    def median(rows, at):
        return statistics.median(r[at] for r in rows)

    wall_alone, wall_loaded = median(alone, 0), median(loaded, 0)
    print(f"\ndashboard under load: BFCL {args.categories} (limit {args.limit or 'all'}), C={args.concurrency}, "
          f"peer {args.latency * 1000:.0f} ms; {args.pollers} pollers on their own core; medians of {args.repeats}")
    print(f"  alone        {wall_alone:7.2f} s   (run phase {median(alone, 1):.2f} s; peer's added delay "
          f"{statistics.median(peer_delay(log, *r[2], args.latency) for r in alone) * 1000:.1f} ms)")
    print(f"  under load   {wall_loaded:7.2f} s   (run phase {median(loaded, 1):.2f} s; peer's added delay "
          f"{statistics.median(peer_delay(log, *r[2], args.latency) for r in loaded) * 1000:.1f} ms)")
    print(f"  ratio        {wall_loaded / wall_alone:7.2f} x   (target <= 1.5)")
    for endpoint in ENDPOINTS:
        every = [x for p in polled for x in p["latencies"][endpoint]]
        if every:
            print(f"  {endpoint:<16} median {statistics.median(every) * 1000:7.0f} ms   "
                  f"{len(every) / len(polled):7.0f} requests a run")
        else:
            print(f"  {endpoint:<16} no answer")
    errors = [e for p in polled for e in p["errors"]]
    print(f"  poller errors {len(errors)}" + (f"; first: {errors[0]}" if errors else ""))
    print(f"  load average {os.getloadavg()[0]:.1f} (machine: {os.cpu_count()} cores, shared)")


if __name__ == "__main__":
    main()
