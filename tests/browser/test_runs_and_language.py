"""The Runs tab lists and compares stored runs; the page speaks Chinese to a Chinese browser."""

from __future__ import annotations

import re

import pytest
from peers import settings_for
from playwright.sync_api import expect

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from evalui.ui.i18n.strings import STRINGS
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser


def test_runs_tab_lists_compares_and_opens_runs(browser, launch_app, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    oracle = BfclOracle(["simple_python"])
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body) if n % 2 else oracle.wrong_reply(body)) as peer:
        store = RunStore()
        for name, model in (("cmp-a", "model-a"), ("cmp-b", "model-b")):
            settings = settings_for(peer, model=model)
            options = BfclOptions(categories=["simple_python"], limit=4, mode="fc")
            lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id=name), settings)
        store.close()
    url = launch_app({})
    page = browser.new_page()
    page.goto(url)
    page.get_by_role("tab", name="Runs").click()
    table = page.locator("#runs-table")
    table.filter(has_text="cmp-a").wait_for(timeout=30_000)
    assert "model-b" in table.inner_text() and "finished" in table.inner_text()

    # No chart is drawn before there is something to compare.
    for chart in ("#runs-compare-groups", "#runs-compare-tokens", "#runs-pareto"):
        expect(page.locator(chart)).to_be_hidden()
    page.locator("#runs-compare-choice input").click()
    page.get_by_role("option", name="cmp-a").click()
    page.locator("#runs-compare-choice input").click()
    page.get_by_role("option", name="cmp-b").click()
    page.locator("#runs-compare").click()
    page.locator("#runs-compare-groups .js-plotly-plot").wait_for(timeout=30_000)
    page.locator("#runs-compare-tokens .js-plotly-plot").wait_for(timeout=30_000)

    page.locator("#runs-runs input").click()
    page.get_by_role("option", name=re.compile("^cmp-b")).click()
    # The run's samples are the viewer's list (the tab has no samples table), its files one menu.
    page.locator('#runs-viewer-list tr[data-id="simple_python_3"]').wait_for(timeout=30_000)
    page.locator("#runs-figures").filter(has_text="4/4 judged").wait_for(timeout=30_000)
    page.locator("#runs-files-menu").get_by_text("Downloads").first.click()
    page.locator('#runs-files a[download="BFCL_v4_simple_python_result.json"]').wait_for(timeout=30_000)


def test_page_follows_the_browser_language(browser, launch_app):
    url = launch_app({})
    for locale, tab, button in (("zh-CN", "运行记录", "开始 BFCL 评估"), ("en-US", "Runs", "Start BFCL run")):
        context = browser.new_context(locale=locale)
        page = context.new_page()
        page.goto(url)
        page.get_by_role("tab", name=tab).wait_for(timeout=30_000)
        assert page.locator("#bfcl-start").inner_text().strip() == button
        context.close()
    assert all(zh and en for en, zh in STRINGS.values())
