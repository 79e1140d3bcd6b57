"""A tab's stored-runs list updates itself: a run another process stores appears without Refresh,
and a run that ends stops being listed as running, even after the page was reloaded mid-run."""

from __future__ import annotations

import re
import threading
import time

import pytest
from peers import settings_for
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from browser.test_launcher_usability import endpoint, set_bfcl
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from evalui.ui.refresh import RUNS_REFRESH_ENV
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.browser
WAIT = 60_000  # generous: only a hang fails


@pytest.fixture()
def quickly_refreshed_app_url(monkeypatch, request):
    """The dashboard, its stored-runs lists re-read every second instead of every ten."""
    monkeypatch.setenv(RUNS_REFRESH_ENV, "1")
    return request.getfixturevalue("app_url")


def listed(page, name: re.Pattern, timeout_s: float = WAIT / 1000):
    """The runs list's option named ``name``, once the list's own timer has put it there. The list is
    opened again every few seconds: under load a refresh can land while the menu is open, and what
    the menu shows is then the options it opened with. The message names the options it did show."""
    deadline = time.monotonic() + timeout_s
    while True:
        page.locator("#bfcl-runs input").click()
        option = page.get_by_role("option", name=name)
        try:
            option.wait_for(timeout=3_000)
            return option
        except PlaywrightTimeout:
            shown = page.get_by_role("option").all_inner_texts()
            page.keyboard.press("Escape")
            if time.monotonic() > deadline:
                raise AssertionError(f"no option matches {name.pattern!r}; the list shows {shown}") from None


def test_a_run_stored_elsewhere_appears_and_an_ended_run_is_not_running(browser, quickly_refreshed_app_url):
    app_url = quickly_refreshed_app_url
    oracle = BfclOracle(["simple_python"])
    page = browser.new_page()
    page.goto(app_url)
    page.locator("#bfcl-start").wait_for(timeout=WAIT)

    # Another process (the CLI, a worker) stores a run: it joins the list without Refresh.
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        store = RunStore()
        settings = settings_for(peer)
        options = BfclOptions(categories=["simple_python"], limit=2, mode="fc")
        lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id="from-the-cli"), settings)
        store.close()
    listed(page, re.compile("^from-the-cli .* finished"))
    page.keyboard.press("Escape")

    # A run started here, watched after a reload (the timer, not the start stream), ends as finished.
    release = threading.Event()

    def held(body, n):
        if oracle.entry_for(body) is None:
            return completion("ready")  # the endpoint check, not a sample
        release.wait(timeout=120)
        return oracle.gold_reply(body)

    with ScriptedPeer(held) as peer:
        endpoint(page, base_url=peer.base_url)
        set_bfcl(page, limit=2, concurrency=2, exp_id="watched-here")
        page.locator("#bfcl-start").click()
        page.locator("#bfcl-status").filter(has_text="running").wait_for(timeout=WAIT)
        page.reload()
        page.locator("#bfcl-status").filter(has_text="watched-here").wait_for(timeout=WAIT)
        release.set()
        page.locator("#bfcl-status").filter(has_text="finished").wait_for(timeout=WAIT)
    # The list catches up on its own timer, a moment after the status line: wait for that refresh.
    option = listed(page, re.compile("^watched-here .* finished"))
    assert "running" not in option.inner_text()
