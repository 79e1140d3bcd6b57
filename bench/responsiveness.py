"""How soon evalui gives up, falls back or stops (printed, never asserted).

The tests check that these things happen (a cancel ends a run whose requests are held forever, a
Retry-After past the deadline is refused with one request, only the probe reaches a silent Hub);
how long they take depends on the machine, so the seconds are measured here:

- cancel: a run with two requests in flight (answers held), or in a 20 s Retry-After wait, from
  cancel.set() to the run's end; the same for another dashboard replica's cancel through the store;
  and `evalui bfcl run` from SIGTERM or SIGINT to its exit (README: "within 2 s");
- the client: a body dripped a byte every 0.2 s with a 1 s timeout and one retry (ideal 2 s), and
  a Retry-After of 55 s past a 4 s budget (ideal: at once);
- pre-flight: a closed port, and a silent endpoint with a 1 s timeout;
- the Hub: the 3 s probe against a silent Hub and a closed port, and GAIA's fallback to its cached
  copy with a silent Hub, in a fresh interpreter (imports included);
- the sandbox: a runaway loop with a 1.5 s limit, and a cancel, from cancel to return;
- `evalui bfcl score` on a file of nine hostile lines, the whole command;
- GAIA attachments inlined in a fresh interpreter (the inlining alone, and its extra peak memory):
  a 200,000-row workbook (37 MB of sheet XML), shared strings declaring 300 MB (refused), one row of
  60 MB of cells, a sparse 4 GB text file (README: "a workbook bomb costs a fraction of a second").

The dashboard's own figures (cancel, progress, a closed port, in Chromium) are
bench/dashboard_responsiveness.py's.

Run: .venv/bin/python bench/responsiveness.py
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from peers import Held, settings_for  # noqa: E402
from test_attachments import (  # noqa: E402
    inline_alone,
    long_row_bomb,
    shared_strings_bomb,
    sparse_text_file,
    write_million_cell_workbook,
)
from test_bfcl_safety import hostile_lines  # noqa: E402
from test_hub_fallback import SAMPLE, ClosedPort, SilentServer  # noqa: E402
from test_runner import EchoTask  # noqa: E402
from waiting import wait_for  # noqa: E402

from evalui import hub  # noqa: E402
from evalui.benchmarks.bfcl.data import load_category  # noqa: E402
from evalui.endpoint.client import EndpointError, ModelClient  # noqa: E402
from evalui.endpoint.preflight import PreflightError, check_endpoint  # noqa: E402
from evalui.endpoint.settings import EndpointSettings  # noqa: E402
from evalui.run.background import BackgroundRuns  # noqa: E402
from evalui.run.runner import run_experiment  # noqa: E402
from evalui.sandbox.base import Limits  # noqa: E402
from evalui.sandbox.local import LocalSandbox  # noqa: E402
from evalui.store.run_store import RunStore  # noqa: E402
from support.openai_peer import Reply, ScriptedPeer, completion, error  # noqa: E402


def seconds(call) -> float:
    started = time.monotonic()
    try:
        call()
    except (EndpointError, PreflightError):
        pass
    return time.monotonic() - started


def run_cancel_s(folder: Path, script, replica: bool = False, **settings) -> float:
    """A 6-sample echo run at concurrency 2; once two requests are in, cancel it; seconds to its end."""
    store = RunStore(folder / f"cancel-{time.monotonic_ns()}.sqlite")
    store.create_or_get_experiment("e", "echo", "m", "h", {})
    store.add_samples("e", [(f"s{i}", "g", {"word": f"w{i}"}) for i in range(6)])
    cancel = threading.Event()
    with ScriptedPeer(script) as peer:
        client = ModelClient(settings_for(peer, **settings))
        thread = threading.Thread(target=run_experiment, args=(store, "e", EchoTask(), client),
                                  kwargs={"concurrency": 2, "cancel": cancel}, daemon=True)
        thread.start()
        wait_for(lambda: len(peer.chat_requests()) >= 2, "the run never asked the endpoint")
        started = time.monotonic()
        if replica:
            watching = RunStore(store.path)
            BackgroundRuns().cancel("e", watching)
            watching.close()
        else:
            cancel.set()
        thread.join()
        took = time.monotonic() - started
    store.close()
    return took


def cli_signal_s(folder: Path, sig: signal.Signals) -> float:
    with Held() as held, ScriptedPeer(held) as peer:
        process = subprocess.Popen(
            [sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python", "--limit", "6",
             "--mode", "fc", "--base-url", peer.base_url, "--model", "m", "--concurrency", "2", "--timeout", "3600"],
            env={**os.environ, "EVALUI_DATA_DIR": str(folder / sig.name)}, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        wait_for(lambda: len(peer.chat_requests()) >= 2, "the CLI run never asked the endpoint", within_s=600)
        started = time.monotonic()
        process.send_signal(sig)
        process.wait()
        return time.monotonic() - started


def fresh_interpreter_s(code: str, hub_url: str, data_dir: Path) -> float:
    environment = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")}
    environment.update(HF_ENDPOINT=hub_url, EVALUI_DATA_DIR=str(data_dir), HF_TOKEN="hf_bench")
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", code], capture_output=True, env=environment, timeout=900)
    return time.monotonic() - started


def sandbox_figures() -> tuple[float, float]:
    """Seconds for a runaway loop with a 1.5 s limit to return, and from a cancel to the return."""
    session = LocalSandbox().open({})
    try:
        runaway = seconds(lambda: session.run("while True:\n    pass", Limits(wall_s=1.5)))
    finally:
        session.close()
    cancel = threading.Event()
    opened = LocalSandbox(cancel=cancel).open({})
    ended = {}

    def run():
        opened.run("import time\nopen('started', 'w').close()\ntime.sleep(600)", Limits(wall_s=600))
        ended["at"] = time.monotonic()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    wait_for((opened.work / "started").exists, "the sandboxed program never started")
    cancelled = time.monotonic()
    cancel.set()
    thread.join()
    opened.close()
    return runaway, ended["at"] - cancelled


def hostile_score_s(folder: Path) -> float:
    results = folder / "BFCL_v4_simple_python_result.json"
    ids = [e.id for e in load_category("simple_python")]
    lines = hostile_lines(folder / "ran")
    results.write_text("".join(json.dumps({"id": ids[i], "result": text}) + "\n" for i, text in enumerate(lines)))
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "evalui", "bfcl", "score", "--category", "simple_python",
                    "--results", str(results), "--out", str(folder / "verdicts.jsonl")], capture_output=True, timeout=900)
    return time.monotonic() - started


def attachment_rows(folder: Path) -> list[tuple[str, float, str]]:
    """Seconds to inline each hostile attachment (in a fresh interpreter), with its extra peak memory."""
    folder.mkdir()
    files = (("GAIA attachment: 200,000-row workbook", write_million_cell_workbook(folder / "million.xlsx")),
             ("GAIA attachment: shared strings declaring 300 MB", shared_strings_bomb(folder, 300)),
             ("GAIA attachment: one row of 60 MB of cells", long_row_bomb(folder)),
             ("GAIA attachment: sparse 4 GB text file", sparse_text_file(folder / "log.txt")))
    rows = []
    for label, path in files:
        result = inline_alone(path)
        rows.append((label, result["seconds"], f"peak memory {result['extra_mb']:.0f} MB above the imports'"))
    return rows


GAIA_CACHED = "from evalui.benchmarks.gaia.data import load_hf\nload_hf('validation')\n"


def main() -> None:
    rows: list[tuple[str, float, str]] = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        with Held() as held:
            rows.append(("cancel, 2 requests in flight", run_cancel_s(folder, held, timeout_s=3600), "README: within 2 s"))
        rows.append(("cancel, in a 20 s Retry-After wait",
                     run_cancel_s(folder, lambda body, n: error(429, retry_after=20), timeout_s=600), "within 2 s"))
        with Held() as held:
            rows.append(("cancel from another replica (SQLite)", run_cancel_s(folder, held, replica=True, timeout_s=3600),
                         "about 2 s (1 s heartbeat)"))
        rows.append(("evalui bfcl run, SIGTERM to exit", cli_signal_s(folder, signal.SIGTERM), "within 2 s"))
        rows.append(("evalui bfcl run, Ctrl-C to exit", cli_signal_s(folder, signal.SIGINT), "within 2 s"))

        drip = completion("x" * 400)
        drip.drip_s = 0.2
        with ScriptedPeer(lambda body, n: drip) as peer:
            client = ModelClient(settings_for(peer, timeout_s=1.0, max_retries=1), backoff_initial_s=0.01)
            rows.append(("dripping body, 1 s timeout, 1 retry", seconds(lambda: client.chat([{"role": "user", "content": "hi"}])),
                         "ideal 2 s"))
        with ScriptedPeer(lambda body, n: error(429, retry_after=55)) as peer:
            client = ModelClient(settings_for(peer, timeout_s=1.0, max_retries=3))
            rows.append(("Retry-After 55 s past a 4 s budget", seconds(lambda: client.chat([{"role": "user", "content": "hi"}])),
                         "ideal 0"))

        closed = ClosedPort()
        rows.append(("pre-flight, closed port", seconds(lambda: check_endpoint(
            EndpointSettings(base_url=f"{closed.url}/v1", model="m"))), "at once"))
        with ScriptedPeer(lambda body, n: Reply(body={"choices": []}, delay_s=4)) as peer:
            rows.append(("pre-flight, silent endpoint, 1 s timeout",
                         seconds(lambda: check_endpoint(settings_for(peer), timeout_s=1.0)), "ideal 1 s"))

        with SilentServer() as silent:
            os.environ["HF_ENDPOINT"] = silent.url
            rows.append(("Hub probe, silent Hub", seconds(hub.hub_unreachable), f"ideal {hub.HUB_PROBE_TIMEOUT_S:g} s"))
            shutil.copytree(SAMPLE, folder / "gaia-data" / "cache" / "gaia" / "2023" / "validation")
            rows.append(("GAIA from its cache, silent Hub (fresh interpreter)",
                         fresh_interpreter_s(GAIA_CACHED, silent.url, folder / "gaia-data"), "imports + 3 s probe"))
        os.environ["HF_ENDPOINT"] = ClosedPort().url
        rows.append(("Hub probe, closed port", seconds(hub.hub_unreachable), "at once"))
        del os.environ["HF_ENDPOINT"]

        runaway, sandbox_cancel = sandbox_figures()
        rows.append(("sandbox, runaway loop with a 1.5 s limit", runaway, "ideal 1.5 s"))
        rows.append(("sandbox, cancel to return", sandbox_cancel, "fraction of a second"))
        rows.append(("evalui bfcl score, 9 hostile lines (whole command)", hostile_score_s(folder), "imports bfcl-eval"))
        rows.extend(attachment_rows(folder / "attachments"))

    width = max(len(label) for label, _, _ in rows)
    for label, value, note in rows:
        print(f"{label:<{width}}  {value:7.2f} s   ({note})")


if __name__ == "__main__":
    main()
