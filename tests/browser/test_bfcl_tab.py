"""Run BFCL from the browser: live progress, then accuracy, and the run survives a reload."""

from __future__ import annotations

import re
import threading
from collections import Counter

import pytest
from peers import SENTINEL_KEY
from playwright.sync_api import expect

from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser


@pytest.fixture()
def slow_gold_peer():
    oracle = BfclOracle(["simple_python"])

    def script(body, n):
        reply = oracle.gold_reply(body)
        reply.delay_s = 0.7  # slow enough that progress is seen between samples
        return reply

    with ScriptedPeer(script) as peer:
        yield peer


def test_run_bfcl_in_the_browser(browser, launch_app, slow_gold_peer, tmp_path):
    url = launch_app({"OPENAI_BASE_URL": slow_gold_peer.base_url, "OPENAI_API_KEY": SENTINEL_KEY})
    page = browser.new_page()
    page.goto(url)
    page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
    page.locator("#endpoint-model").get_by_role("textbox").fill("scripted-model")
    concurrency = page.locator("#bfcl-concurrency input[type=number]")
    concurrency.fill("1")
    concurrency.press("Enter")
    page.locator("#bfcl-start").click()

    page.get_by_text(re.compile(r"BFCL [0-4]/5")).first.wait_for(timeout=60_000)  # the progress bar's label
    status = page.locator("#bfcl-status")
    status.filter(has_text=re.compile(r"running · [1-4]/5 done")).wait_for(timeout=60_000)
    page.screenshot(path=str(tmp_path / "bfcl-running.png"), full_page=True)

    status.filter(has_text="5/5 done").wait_for(timeout=60_000)
    status.filter(has_text="(100.0%)").wait_for(timeout=30_000)
    page.locator("#bfcl-accuracy-plot .js-plotly-plot").wait_for(timeout=30_000)
    # The samples are the viewer's list (the run page has no sample table).
    page.locator('#bfcl-viewer-list tr[data-id="simple_python_0"]').wait_for(timeout=30_000)
    # One category of the leaderboard's: the overall score is shown on the figures card, said to be
    # partial, and its parts in the leaderboard menu.
    page.locator("#bfcl-figures").filter(has_text="BFCL v4 overall").filter(has_text="partial").wait_for(timeout=30_000)
    page.locator("#bfcl-leaderboard-menu").get_by_text("Leaderboard").first.click()
    board = page.locator("#bfcl-leaderboard")
    board.filter(has_text="partial overall score").wait_for(timeout=30_000)
    assert "non_live" in board.inner_text() or "non-live" in board.inner_text()
    page.screenshot(path=str(tmp_path / "bfcl-done.png"), full_page=True)
    assert SENTINEL_KEY not in page.content()
    # Five samples, and before the run the one-token check of the endpoint (the peer answers it apart).
    assert len(slow_gold_peer.chat_requests()) == 5
    assert [r.body.get("max_tokens") for r in slow_gold_peer.probes] == [1]

    # A reloaded page finds the run again in the store.
    page.reload()
    page.locator("#bfcl-runs input").click()
    page.get_by_role("option", name=re.compile("bfcl-scripted-model")).first.click()
    page.locator("#bfcl-status").filter(has_text="5/5 done").wait_for(timeout=30_000)
    page.locator("#bfcl-accuracy-plot .js-plotly-plot").wait_for(timeout=30_000)


def test_epochs_from_the_tab_give_mean_stderr_and_pass_at_k(browser, launch_app, tmp_path):
    """Two samples asked three times each; simple_python_0 is answered wrong the first time only,
    so per-sample accuracies are 2/3 and 1: mean 83.3%, standard error 16.7%, pass@1 83.3%, pass@3 100%."""
    oracle = BfclOracle(["simple_python"])
    asked: Counter = Counter()
    lock = threading.Lock()

    def wrong_once(body, n):
        entry = oracle.entry_for(body)
        if entry is None:  # the endpoint check before the run
            return oracle.gold_reply(body)
        with lock:
            asked[entry.id] += 1
            first = asked[entry.id] == 1
        return oracle.wrong_reply(body) if first and entry.id == "simple_python_0" else oracle.gold_reply(body)

    with ScriptedPeer(wrong_once) as peer:
        url = launch_app({"OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": SENTINEL_KEY})
        page = browser.new_page()
        page.goto(url)
        page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
        page.locator("#endpoint-model").get_by_role("textbox").fill("scripted-model")
        page.locator("#bfcl-limit input").fill("2")
        page.locator("#bfcl-epochs input").fill("3")
        page.locator("#bfcl-exp-id").get_by_role("textbox").fill("bfcl-epochs")
        page.locator("#bfcl-start").click()

        status = page.locator("#bfcl-status")
        expect(status).to_contain_text("6/6 done", timeout=60_000)
        expect(status).to_contain_text("3 epochs: mean 83.3% ± 16.7% (standard error) · pass@1 83.3% · pass@3 100.0%",
                                       timeout=30_000)
    assert asked == {"simple_python_0": 3, "simple_python_1": 3}
    report = (tmp_path / "data" / "runs" / "bfcl-epochs" / "report.md").read_text()
    assert "## Repeats" in report and "**83.3%** ± 16.7%" in report and "pass@3 100.0%" in report
