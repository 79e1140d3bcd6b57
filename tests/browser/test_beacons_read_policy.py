"""The read policy as a visitor's browser meets it: under an allow-list, an anonymous page loads
quietly and shows no stored run anywhere; with EVALUI_PUBLIC_READ=1 the same page lists it."""

from __future__ import annotations

import re

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser


@pytest.fixture()
def stored_run(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    oracle = BfclOracle(["simple_python"])
    store = RunStore()
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        settings = settings_for(peer)
        options = BfclOptions(categories=["simple_python"], limit=2, mode="fc")
        lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id="kept-private"), settings)
    store.close()


def runs_page(browser, url):
    page = browser.new_page()
    page.goto(url)
    page.get_by_role("tab", name="Runs").click()
    page.locator("#runs-table").wait_for(timeout=60_000)
    page.wait_for_timeout(2000)  # the page's load events have answered by now
    return page


@pytest.mark.parametrize("public", [False, True], ids=["closed", "public-read"])
def test_an_anonymous_page_sees_stored_runs_only_with_public_read(browser, launch_app, stored_run, public):
    url = launch_app({"EVALUI_ALLOWED_USERS": "alice", "EVALUI_PUBLIC_READ": "1" if public else ""})
    page = runs_page(browser, url)
    if public:
        page.locator("#runs-table").filter(has_text="kept-private").wait_for(timeout=30_000)
        return
    assert "kept-private" not in page.locator("#runs-table").inner_text()
    page.get_by_role("tab", name="BFCL").click()
    page.locator("#bfcl-runs input").click()
    assert page.get_by_role("option", name=re.compile("kept-private")).count() == 0
    assert page.locator(".toast-body").count() == 0  # nothing on the page's own loading complained
    assert "kept-private" not in page.content()
