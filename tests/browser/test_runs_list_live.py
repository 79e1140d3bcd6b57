"""A tab's stored-runs list updates itself: a run another process stores appears without Refresh,
and a run that ends stops being listed as running, even after the page was reloaded mid-run."""

from __future__ import annotations

import re
import threading

import pytest
from peers import settings_for

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
    page.locator("#bfcl-runs input").click()
    page.get_by_role("option", name=re.compile("^from-the-cli .* finished")).wait_for(timeout=WAIT)
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
    page.locator("#bfcl-runs input").click()
    # The list catches up on its own timer, a moment after the status line: wait for that refresh.
    option = page.get_by_role("option", name=re.compile("^watched-here .* finished"))
    option.wait_for(timeout=WAIT)
    assert "running" not in option.inner_text()
