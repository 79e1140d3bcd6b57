"""How much browser CPU the dashboard's page costs, with and without the progress-target policy
(printed, never asserted).

Gradio 6's page re-applies the loading state of every component any event has marked, on every
status message, and finds each by walking the component tree (evalui/ui/tabs/progress_targets.py). This
opens the page in headless Chromium and reads Chromium's own counter of main-thread work
(``Performance.getMetrics``, TaskDuration) for:

- opening the page until the endpoint panel answers a click;
- 30 s left open on the BFCL tab (its stored-runs timer ticks every 10 s);
- the same run watched (a BFCL run held at 2/20 answers: the progress timer ticks every 0.5 s).

"policy" is the app as built; "all outputs" undoes the policy (every event marks all its outputs,
Gradio's default), in the same process, one after the other. Needs Debian's chromium (make browser).

Run: .venv/bin/python bench/page_cpu.py [--repeats 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
sys.path[:0] = [str(TESTS / "browser"), str(TESTS), str(ROOT)]  # app.py is at the root

from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (tests/browser/conftest.py)
from playwright.sync_api import sync_playwright  # noqa: E402
from test_launcher_usability import endpoint, gold_peer, set_bfcl  # noqa: E402

IDLE_S = 30.0
WATCH_S = 20.0
WAIT_MS = 120_000


def launch(policy: bool):
    import app

    demo = app.build_demo()
    if not policy:
        for fn in demo.fns.values():
            fn.show_progress_on = None
    demo.queue()
    _, url, _ = demo.launch(prevent_thread_lock=True, quiet=True, **app.launch_options())
    return demo, url


def main_thread_s(cdp) -> float:
    return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration")


def measure(browser, policy: bool) -> dict[str, float]:
    demo, url = launch(policy)
    try:
        page = browser.new_page()
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.goto(url)
        page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
        opened = main_thread_s(cdp)
        page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
        time.sleep(2)
        before = main_thread_s(cdp)
        time.sleep(IDLE_S)
        idle = main_thread_s(cdp) - before
        endpoint(page)
        set_bfcl(page, limit=20, concurrency=1, mode="prompt", exp_id=f"page-cpu-{policy}-{time.monotonic_ns()}")
        page.locator("#bfcl-start").click()
        page.locator("#bfcl-status").filter(has_text="running").wait_for(timeout=WAIT_MS)
        before = main_thread_s(cdp)
        time.sleep(WATCH_S)
        watching = main_thread_s(cdp) - before
        page.locator("#bfcl-cancel").click()
        page.context.close()
        return {"open": opened, "idle": idle / IDLE_S, "watch": watching / WATCH_S}
    finally:
        demo.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    os.environ["EVALUI_DATA_DIR"] = tempfile.mkdtemp(prefix="page-cpu-")
    held = threading.Event()

    def answer(body, reply):  # the run stays going while the page watches it
        held.wait(600)
        return reply

    figures: dict[bool, list[dict]] = {True: [], False: []}
    with gold_peer(answer) as peer, sync_playwright() as playwright:
        os.environ["OPENAI_BASE_URL"] = peer.base_url
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for _ in range(args.repeats):
            for policy in (True, False):  # interleaved: the machine's noise falls on both
                figures[policy].append(measure(browser, policy))
        browser.close()
        held.set()
    print("browser main-thread CPU (Chromium TaskDuration), median of", args.repeats)
    print(f"{'':14}{'open page (s)':>15}{'idle (s/s)':>12}{'watching a run (s/s)':>22}")
    for policy, label in ((True, "policy"), (False, "all outputs")):
        rows = figures[policy]
        print(f"{label:14}" + "".join(f"{statistics.median(r[k] for r in rows):>{w}.3f}"
                                      for k, w in (("open", 15), ("idle", 12), ("watch", 22))))


if __name__ == "__main__":
    main()
