"""Long work you can watch, in Chromium: a run whose endpoint dies pauses and resumes with nothing
lost, the status bar stays in view while the page scrolls, the endpoint panel closes after a good
check, and the results fill in while the run goes."""

from __future__ import annotations

import re
import threading
from dataclasses import replace

import pytest
from peers import SENTINEL_KEY
from playwright.sync_api import expect
from waiting import HANG_S, wait_for

from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser
HANG_MS = int(HANG_S * 1000)
VIEWPORT = {"width": 1440, "height": 900}


def is_check(body) -> bool:
    return body.get("max_tokens") == 1  # the endpoint check before a run


def open_page(browser, url):
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.goto(url)
    page.locator("#bfcl-start").wait_for(timeout=60_000)
    return page


def fill_endpoint(page, base_url=None, model="scripted-model"):
    if not page.locator("#endpoint-model").get_by_role("textbox").is_visible():  # closed when the server has one
        page.get_by_text("Endpoint (any OpenAI-compatible server)").first.click()
    if base_url is not None:
        page.locator("#endpoint-base-url").get_by_role("textbox").fill(base_url)
    page.locator("#endpoint-model").get_by_role("textbox").fill(model)


def start_bfcl(page, limit, concurrency):
    page.locator("#bfcl-limit input").fill(str(limit))
    box = page.locator("#bfcl-concurrency input[type=number]")
    box.fill(str(concurrency))
    box.press("Enter")
    page.locator("#bfcl-start").click()


# The run page's samples are the viewer's list (#38): its verdict column, row by row.
VERDICTS_JS = """() => [...document.querySelectorAll('#bfcl-viewer-list tr[data-id] td[data-col="verdict"]')]
    .map(cell => cell.innerText.trim())"""


def table_verdicts(page) -> list[str]:
    """The viewer list's verdict column, as the page shows it."""
    return page.evaluate(VERDICTS_JS)


def shows(page, verdicts: list[str], what: str) -> None:
    """Wait until the table's verdicts are ``verdicts``; on a hang, say what it showed."""
    seen = []
    try:
        wait_for(lambda: seen.append(table_verdicts(page)) or seen[-1] == verdicts, what)
    except BaseException:
        print(f"{what}; the list showed {seen[-1:]}")
        raise


def test_a_run_whose_endpoint_dies_pauses_and_resumes_with_nothing_lost(browser, launch_app):
    oracle = BfclOracle(["simple_python"])
    stopped = threading.Event()
    answered = []

    def script(body, n):
        if not is_check(body):
            answered.append(n)
            if len(answered) > 3:  # later answers wait until the endpoint is stopped: the run cannot finish first
                stopped.wait(HANG_S)
        # Each answer closes its connection: after the stop no kept-alive connection still answers.
        reply = oracle.gold_reply(body)
        return replace(reply, headers={**reply.headers, "connection": "close"})

    first = ScriptedPeer(script).start()
    port = first._server.server_address[1]
    second = None
    try:
        page = open_page(browser, launch_app({"OPENAI_BASE_URL": first.base_url, "OPENAI_API_KEY": SENTINEL_KEY}))
        fill_endpoint(page)
        start_bfcl(page, limit=8, concurrency=2)
        status = page.locator("#bfcl-status")
        status.filter(has_text=re.compile(r"running · [3-8]/8 done")).wait_for(timeout=HANG_MS)
        first.stop()  # its port now refuses connections
        stopped.set()
        status.filter(has_text=re.compile(r"paused: the endpoint at 127\.0\.0\.1:\d+ does not answer \(since "
                                          r"\d\d:\d\d:\d\d\); probing every \d+ s")).wait_for(timeout=HANG_MS)
        expect(status).to_contain_text("0 errors")
        expect(page.locator("#bfcl-progress")).to_contain_text("paused: endpoint down")
        expect(page.locator("#bfcl-log textarea")).to_have_value(re.compile("paused: the endpoint at"))

        second = ScriptedPeer(script, port=port).start()  # back, on the same port
        status.filter(has_text=re.compile(r"finished · 8/8 done · 8 correct \(100\.0%\) · 0 errors")).wait_for(
            timeout=HANG_MS)
        expect(page.locator("#bfcl-log textarea")).to_have_value(re.compile("resumed: the endpoint at"))
        expect(status).not_to_contain_text("paused")
        shows(page, ["correct"] * 8, "the viewer never listed all 8 samples correct")
    finally:
        stopped.set()
        (second or first).stop()


def test_the_status_bar_stays_in_view_and_the_endpoint_panel_closes_after_a_good_check(browser, launch_app):
    oracle = BfclOracle(["simple_python"])
    release = threading.Event()

    def script(body, n):
        if not is_check(body):
            release.wait(HANG_S)  # the run stays going while the page is scrolled
        return oracle.gold_reply(body)

    with ScriptedPeer(script) as peer:
        try:
            page = open_page(browser, launch_app({}))  # no server endpoint: the panel starts open
            model_box = page.locator("#endpoint-model").get_by_role("textbox")
            expect(model_box).to_be_visible()
            fill_endpoint(page, base_url=peer.base_url)
            page.get_by_label("Timeout per request (s)").fill("3600")
            page.locator("#endpoint-test").click()
            page.locator("#endpoint-test-result").filter(has_text=re.compile(r"OK: 127\.0\.0\.1:\d+ answered")).wait_for(
                timeout=HANG_MS)
            expect(model_box).to_be_hidden()  # the panel closed, and the check's result stays in view

            start_bfcl(page, limit=3, concurrency=1)
            status = page.locator("#bfcl-status")
            # The request held in flight is named, with its seconds.
            status.filter(has_text=re.compile(r"1 in flight: simple_python_0 \(\d+ s\)")).wait_for(timeout=HANG_MS)
            bar = page.locator("#bfcl-status-bar")
            # Where the bar's bottom sits on the page before any scroll: scrolled past it, a bar that
            # did not stick would have left the window.
            bottom = bar.evaluate("node => node.getBoundingClientRect().bottom + window.scrollY")
            # While a run goes the viewer is empty and the page short; a long page (a viewer of many
            # samples below the bar, in the same tab) is made here, so that scrolling can carry the
            # bar's place out of the window.
            page.evaluate("""() => { const tall = document.createElement('div'); tall.style.height = '2400px';
                                     document.querySelector('#bfcl-status-bar').parentElement.appendChild(tall); }""")
            page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            page.wait_for_function(f"window.scrollY > {bottom}")  # scrolled past where the bar was
            expect(page.locator("#bfcl-status-bar")).to_be_in_viewport()
            expect(page.locator("#bfcl-cancel")).to_be_in_viewport()
            expect(status).to_be_in_viewport()
        finally:
            release.set()


def test_results_fill_in_while_the_run_goes(browser, launch_app):
    oracle = BfclOracle(["simple_python"])
    hold = threading.Event()
    asked = []

    def script(body, n):
        if not is_check(body):
            asked.append(n)
            if len(asked) > 3:  # the last answers wait until the test lets them go
                hold.wait(HANG_S)
        return oracle.gold_reply(body)

    with ScriptedPeer(script) as peer:
        try:
            page = open_page(browser, launch_app({"OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": SENTINEL_KEY}))
            fill_endpoint(page)
            page.get_by_label("Timeout per request (s)").fill("3600")
            start_bfcl(page, limit=5, concurrency=1)
            status = page.locator("#bfcl-status")
            status.filter(has_text="running · 3/5 done").wait_for(timeout=HANG_MS)
            # Before the run ends, the header's chart shows the accuracy so far, over the three verdicts
            # there are (the viewer lists the samples once the run ends).
            page.wait_for_function("""() => {
                const text = document.querySelector('#bfcl-accuracy-plot .js-plotly-plot')?.textContent ?? '';
                return text.includes('so far') && text.includes('n=3'); }""", timeout=HANG_MS)
            expect(status).to_contain_text("running")
            hold.set()
            status.filter(has_text="finished · 5/5 done").wait_for(timeout=HANG_MS)
            shows(page, ["correct"] * 5, "the viewer never listed all 5 samples")
        finally:
            hold.set()
