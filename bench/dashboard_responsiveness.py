"""How soon the dashboard's page shows what happened, in headless Chromium (printed, never asserted).

tests/browser/test_launcher_usability.py checks that these things happen (the status says
"cancelling" before the run ends, the page follows a run on its own, a closed port is one message);
how long they take depends on the machine, so the seconds are measured here, from the click (or
from the peer letting an answer through) to the text on the page:

- cancel: a BFCL run whose answers are held, to "cancelling" and to "cancelled" (README: "at once",
  "within about two seconds");
- progress: one answer let through, to the next count on the page (the timer polls every 0.5 s);
- a closed port: "Test connection" to "connection refused", and Start to "Not started".

Each figure is the median of ``--repeats`` (default 3). Needs Debian's chromium (make browser).

Run: .venv/bin/python bench/dashboard_responsiveness.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import re
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
from peers import SENTINEL_KEY, Held  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from test_launcher_usability import closed_port, endpoint, gold_peer, open_page, sample_requests, set_bfcl  # noqa: E402
from waiting import wait_for  # noqa: E402

WAIT_MS = 120_000
# Every text #bfcl-status shows, with the page's clock, and the Cancel click on the same clock: a
# state the timer replaces within a tick is still seen, and no polling delay is counted.
RECORD_JS = """() => {
    window.__statuses = [];
    const read = () => {
        const text = document.querySelector('#bfcl-status')?.innerText ?? '';
        if (window.__statuses.at(-1)?.[1] !== text) window.__statuses.push([performance.now(), text]);
    };
    new MutationObserver(read).observe(document.body, {subtree: true, childList: true, characterData: true});
    document.querySelector('#bfcl-cancel').addEventListener('click', () => { window.__clicked = performance.now(); },
                                                            {capture: true});
}"""


def launch(data_dir: Path, base_url: str) -> tuple[object, str]:
    os.environ.update(EVALUI_DATA_DIR=str(data_dir), OPENAI_BASE_URL=base_url, OPENAI_API_KEY=SENTINEL_KEY)
    import app

    demo = app.build_demo()
    demo.queue()
    _, url, _ = demo.launch(prevent_thread_lock=True, quiet=True, **app.launch_options())
    return demo, url


def seconds_until(locator, since: float) -> float:
    locator.wait_for(timeout=WAIT_MS)
    return time.monotonic() - since


def cancel_figures(browser, folder: Path) -> tuple[float | None, float]:
    """Seconds from the Cancel click to "cancelling" (None if the page never showed it), and to
    "cancelled", answers held."""
    with Held() as held, gold_peer(lambda body, reply: held(body, 0)) as peer:
        demo, url = launch(folder, peer.base_url)
        try:
            page = open_page(browser, url)
            endpoint(page)
            page.get_by_label("Timeout per request (s)").fill("3600")
            set_bfcl(page, limit=4, concurrency=1)
            page.locator("#bfcl-start").click()
            status = page.locator("#bfcl-status")
            status.filter(has_text="running · 0/4 done").wait_for(timeout=WAIT_MS)
            wait_for(lambda: sample_requests(peer), "the run never asked for its first sample")
            page.evaluate(RECORD_JS)
            page.locator("#bfcl-cancel").click()
            status.filter(has_text="cancelled · 0/4 done").wait_for(timeout=WAIT_MS)
            clicked, shown = page.evaluate("[window.__clicked, window.__statuses]")
            page.context.close()

            def first(word: str) -> float | None:
                return next(((at - clicked) / 1000 for at, text in shown if re.search(rf"\b{word}\b", text)), None)

            return first("cancelling"), first("cancelled")
        finally:
            demo.close()


def progress_figure(browser, folder: Path, steps: int = 3) -> float:
    """Mean seconds from the peer letting one answer through to the page showing the next count."""
    permits = threading.Semaphore(1)

    def paced(body, reply):
        permits.acquire(timeout=600)
        return reply

    with gold_peer(paced) as peer:
        demo, url = launch(folder, peer.base_url)
        try:
            page = open_page(browser, url)
            endpoint(page)
            page.get_by_label("Timeout per request (s)").fill("3600")
            set_bfcl(page, limit=steps + 2, concurrency=1)
            page.locator("#bfcl-start").click()
            status = page.locator("#bfcl-status")
            total = steps + 2
            status.filter(has_text=f"running · 1/{total} done").wait_for(timeout=WAIT_MS)
            gaps = []
            for count in range(2, steps + 2):
                wait_for(lambda: len(sample_requests(peer)) >= count, "the run never asked for the next sample")
                released = time.monotonic()
                permits.release()
                gaps.append(seconds_until(status.filter(has_text=re.compile(rf"running · {count}/{total} done")),
                                          released))
            page.context.close()
            return statistics.mean(gaps)
        finally:
            permits.release(100)
            demo.close()


def closed_port_figures(browser, folder: Path) -> tuple[float, float]:
    """Seconds from "Test connection" to "connection refused", and from Start to "Not started"."""
    with gold_peer() as peer:
        demo, url = launch(folder, peer.base_url)
        try:
            page = open_page(browser, url)
            endpoint(page, base_url=f"http://127.0.0.1:{closed_port()}/v1")
            clicked = time.monotonic()
            page.locator("#endpoint-test").click()
            tested = seconds_until(page.locator("#endpoint-test-result").filter(has_text="connection refused"), clicked)
            set_bfcl(page, limit=3, concurrency=1)
            clicked = time.monotonic()
            page.locator("#bfcl-start").click()
            refused = seconds_until(page.locator("#bfcl-status").filter(has_text=re.compile("Not started: .*refused")),
                                    clicked)
            page.context.close()
            return tested, refused
        finally:
            demo.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    figures: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as name, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for repeat in range(args.repeats):
            folder = Path(name) / str(repeat)
            said, ended = cancel_figures(browser, folder / "cancel")
            tested, refused = closed_port_figures(browser, folder / "closed")
            if said is None:
                print(f"repeat {repeat}: the page went from running to cancelled without showing cancelling")
            for label, value in (("Cancel click to \"cancelling\"", said), ("Cancel click to \"cancelled\"", ended),
                                 ("an answer let through to the next count on the page",
                                  progress_figure(browser, folder / "progress")),
                                 ("Test connection, closed port, to \"connection refused\"", tested),
                                 ("Start, closed port, to \"Not started\"", refused)):
                figures.setdefault(label, []).append(value)
        browser.close()
    load = os.getloadavg()[0]
    width = max(len(label) for label in figures)
    for label, values in figures.items():
        seen = [v for v in values if v is not None]
        value = f"{statistics.median(seen):6.2f} s" if seen else "  never "
        print(f"{label:<{width}}  {value}   (median of {len(seen)} of {len(values)}; load {load:.1f})")


if __name__ == "__main__":
    main()
