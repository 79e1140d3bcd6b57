"""The run page is the viewer (issue #38): a finished BFCL run of a few hundred samples opened in
Chromium at 1440×900 shows its summary as one row of cards, its files in one closed menu and no
sample table, and the viewer's first row sits within two viewport heights of the page's top. Opening
the run reads its summary, never its samples' texts (the viewer pages its own rows)."""

from __future__ import annotations

import re
import sqlite3

import pytest
from peers import settings_for
from playwright.sync_api import expect

from browser.pages import choose
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from evalui.ui.tabs import bfcl as bfcl_tab
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser
SAMPLES = 300
VIEWPORT = {"width": 1440, "height": 900}
SAMPLE_TEXTS = {"payload", "request", "response", "prediction", "verdict", "error"}  # the samples' wide columns


@pytest.fixture()
def big_run(tmp_path, monkeypatch):
    """A finished simple_python run of SAMPLES samples, one in five answered wrong."""
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    oracle = BfclOracle(["simple_python"])

    def script(body, n):
        entry = oracle.entry_for(body)
        wrong = entry is not None and int(entry.id.rsplit("_", 1)[-1]) % 5 == 1
        return oracle.wrong_reply(body) if wrong else oracle.gold_reply(body)

    store = RunStore()
    try:
        with ScriptedPeer(script) as peer:
            settings = settings_for(peer)
            options = BfclOptions(categories=["simple_python"], limit=SAMPLES, mode="fc")
            exp_id = lifecycle.prepare(store, BFCL, options, settings, exp_id="big-run")
            summary = lifecycle.execute(store, exp_id, settings, concurrency=16)
    finally:
        store.close()
    assert summary["judged"] == SAMPLES
    return tmp_path / "data" / "runs" / "big-run"


def test_the_run_page_is_the_viewer_under_one_row_of_cards(browser, launch_app, big_run):
    url = launch_app({})
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(url)
    choose(page, "bfcl-runs", re.compile("big-run"))
    first_row = page.locator("#bfcl-viewer-list tr[data-id]").first
    first_row.wait_for(timeout=60_000)
    page.locator("#bfcl-accuracy-plot .js-plotly-plot").wait_for(timeout=30_000)
    figures = page.locator("#bfcl-figures")
    expect(figures).to_contain_text(f"{SAMPLES}/{SAMPLES} judged", timeout=30_000)
    expect(figures).to_contain_text("accuracy: 80.0%")

    # The viewer's first row is at most two viewport heights below the page's top.
    top = first_row.evaluate("row => row.getBoundingClientRect().top + window.scrollY")
    assert top <= 2 * VIEWPORT["height"], f"the viewer's first row is {top:.0f} px down the page"

    # The summary is one row of cards: the figures and the charts drawn side by side.
    boxes = [page.locator(f"#{name}").bounding_box() for name in ("bfcl-figures", "bfcl-accuracy-plot",
                                                                  "bfcl-error-plot")]
    assert all(boxes) and max(b["y"] for b in boxes) - min(b["y"] for b in boxes) < 40, boxes
    # No sample table: the viewer is the one list of samples (the old table was a Dataframe).
    assert page.locator("#bfcl-samples").count() == 0
    assert page.locator("#tab-bfcl [data-testid='dataframe'], #tab-bfcl .table-wrap").count() == 0
    assert page.locator("#bfcl-turns-view").count() == 0 or not page.locator("#bfcl-turns-view").is_visible()
    # A chart without data is not drawn: this run has no format-sensitivity figures.
    expect(page.locator("#bfcl-format-sensitivity-plot")).to_be_hidden()
    assert page.locator("#bfcl-format-sensitivity-plot .js-plotly-plot").count() == 0

    # The downloads are one closed menu; opened, it yields the run's files.
    menu = page.locator("#bfcl-downloads-menu")
    expect(menu).to_contain_text(re.compile(r"Downloads \(\d+ files\)"))
    links = page.locator("#bfcl-downloads a[download]")
    assert not any(link.is_visible() for link in links.all())
    menu.get_by_text(re.compile("Downloads")).first.click()
    report = page.locator('#bfcl-downloads a[download="report.md"]')
    report.wait_for(timeout=30_000)
    offered = {link.get_attribute("download") for link in links.all()}
    assert {"BFCL_v4_simple_python_result.json", "samples.jsonl", "report.md"} <= offered, offered
    with page.expect_download() as download:
        report.click()
    assert download.value.path().read_bytes() == (big_run / "report.md").read_bytes()


def test_the_runs_tab_shows_a_runs_viewer_before_the_comparisons(browser, launch_app, big_run):
    """The Runs tab is a run page too: a stored run chosen there shows its viewer within two viewport
    heights of the page's top, with the comparisons of several runs below it."""
    url = launch_app({})
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(url)
    page.locator("button[role='tab']", has_text="Runs").first.click()
    choose(page, "runs-runs", re.compile("big-run"))
    first_row = page.locator("#runs-viewer-list tr[data-id]").first
    first_row.wait_for(timeout=60_000)
    top = first_row.evaluate("row => row.getBoundingClientRect().top + window.scrollY")
    assert top <= 2 * VIEWPORT["height"], f"the Runs tab's viewer starts {top:.0f} px down the page"
    compare_top = page.locator("#runs-compare-choice").evaluate(
        "node => node.getBoundingClientRect().top + window.scrollY")
    assert compare_top > top, "the comparisons come after the chosen run's viewer"


def test_opening_a_run_reads_its_summary_not_its_samples(big_run):
    store = RunStore()
    read: list[str] = []

    def authorize(action, table, column, database, trigger):
        if action == sqlite3.SQLITE_READ and table == "samples" and column in SAMPLE_TEXTS:
            read.append(column)
        return sqlite3.SQLITE_OK

    try:
        store._db.set_authorizer(authorize)
        assert len(store.samples("big-run")) == SAMPLES and read  # the tripwire sees a read of the samples
        read.clear()
        figures, accuracy, *_ = bfcl_tab.results_view(store, "big-run")
        assert f"{SAMPLES}/{SAMPLES} judged" in figures and accuracy["visible"] is True
        assert read == [], sorted(set(read))
    finally:
        store.close()
