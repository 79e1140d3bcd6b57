"""The sample inspector in real Chromium: a wrong sample opened from a verdict filter (in the Runs tab
and in the BFCL tab), stepped through with the keyboard, its hostile answer shown as text, and a
flipped sample of the paired comparison shown in both runs side by side."""

from __future__ import annotations

import re

import pytest
from peers import settings_for
from playwright.sync_api import expect

from browser.pages import choose
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, completion, error

pytestmark = pytest.mark.browser

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'


@pytest.fixture()
def two_runs(tmp_path, monkeypatch):
    """'base' answers all 6 samples right; 'cand' answers #1 wrong, #2 with hostile text, and fails #3 with HTTP 500."""
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    oracle = BfclOracle(["simple_python"])

    def candidate(body, n):
        index = int(oracle.entry_for(body).id.rsplit("_", 1)[-1])
        return {1: lambda: oracle.wrong_reply(body), 2: lambda: completion(HOSTILE),
                3: lambda: error(500, "always broken")}.get(index, lambda: oracle.gold_reply(body))()

    store = RunStore()
    for name, script in (("base", lambda body, n: oracle.gold_reply(body)), ("cand", candidate)):
        with ScriptedPeer(script) as peer:
            settings = settings_for(peer, max_retries=0)
            options = BfclOptions(categories=["simple_python"], limit=6, mode="fc")
            lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id=name), settings)
    store.close()


def detail(page):
    return page.locator("#runs-inspector-detail .evalui-inspector")


def test_a_wrong_sample_opens_from_the_verdict_filter_and_the_keyboard_steps(browser, launch_app, two_runs):
    url = launch_app({})
    page = browser.new_page()
    page.goto(url)
    page.get_by_role("tab", name="Runs").click()
    choose(page, "runs-runs", re.compile("^cand"))
    page.locator("#runs-inspector").get_by_text("Sample inspector").click()
    page.locator('#runs-inspector-detail .evalui-inspector[data-sample="simple_python_0"]').wait_for(timeout=30_000)

    choose(page, "runs-inspector-verdict", "wrong")
    page.locator('#runs-inspector-detail [data-sample="simple_python_1"][data-verdict="wrong"]').wait_for(timeout=30_000)
    shown = detail(page).inner_text()
    assert "missing_parameter" in shown  # the checker's error type, with its own reason
    gold = page.locator('#runs-inspector-detail pre[data-role="gold"]').inner_text()
    assert re.fullmatch(r"math\.factorial\(number=5\)", gold)  # simple_python_1's gold answer, written as a call
    expect(page.locator("#runs-inspector-position")).to_contain_text("1 / 2", timeout=30_000)

    page.locator("#runs-inspector-search input, #runs-inspector-search textarea").first.click()
    page.keyboard.press("Alt+ArrowDown")  # the hostile answer is the next wrong sample
    page.locator('#runs-inspector-detail [data-sample="simple_python_2"]').wait_for(timeout=30_000)
    answer = page.locator('#runs-inspector-detail pre[data-role="answer"], #runs-inspector-detail pre[data-role="assistant"]')
    assert any(HOSTILE in text for text in answer.all_inner_texts())  # shown as text, not markup
    assert page.locator("#runs-inspector-detail img").count() == 0
    assert page.evaluate("window.__pwned") is None
    page.keyboard.press("Alt+ArrowUp")
    page.locator('#runs-inspector-detail [data-sample="simple_python_1"]').wait_for(timeout=30_000)

    choose(page, "runs-inspector-verdict", "error")
    page.locator('#runs-inspector-detail [data-sample="simple_python_3"][data-verdict="error"]').wait_for(timeout=30_000)
    assert "500" in detail(page).inner_text() or "server_error" in detail(page).inner_text()

    # The same component in a benchmark tab follows that tab's stored run.
    page.get_by_role("tab", name="BFCL").click()
    choose(page, "bfcl-runs", re.compile("^cand"))
    page.locator("#bfcl-inspector").get_by_text("Sample inspector").click()
    choose(page, "bfcl-inspector-verdict", "wrong")
    page.locator('#bfcl-inspector-detail [data-sample="simple_python_1"][data-verdict="wrong"]').wait_for(timeout=30_000)


def test_a_flipped_sample_of_the_comparison_opens_side_by_side(browser, launch_app, two_runs):
    url = launch_app({})
    page = browser.new_page()
    page.goto(url)
    page.get_by_role("tab", name="Runs").click()
    choose(page, "runs-pair-a", "base")
    choose(page, "runs-pair-b", "cand")
    page.locator("#runs-pair-compare").click()
    figures = page.locator("#runs-pair-figures")
    figures.filter(has_text="McNemar").wait_for(timeout=30_000)
    assert "6 paired samples" in figures.inner_text() and "Flipped to wrong: 3" in figures.inner_text()

    choose(page, "runs-pair-flips", re.compile(r"^simple_python_1 .*correct → wrong"))
    pair = page.locator('#runs-pair-detail .evalui-pair[data-sample="simple_python_1"]')
    pair.wait_for(timeout=30_000)
    assert pair.locator('.evalui-pair-a [data-sample="simple_python_1"][data-verdict="correct"]').count() == 1
    assert pair.locator('.evalui-pair-b [data-sample="simple_python_1"][data-verdict="wrong"]').count() == 1
    assert "cand" in pair.locator(".evalui-pair-b").inner_text()
    changed = pair.locator('table.evalui-aligned-calls tr[data-mark="changed"]')  # one call, other arguments
    assert changed.count() == 1 and "zz_wrong" in changed.inner_text() and "number" in changed.inner_text()
    choose(page, "runs-pair-flips", re.compile(r"^simple_python_3 .*correct → error"))
    page.locator('#runs-pair-detail .evalui-pair-b [data-sample="simple_python_3"][data-verdict="error"]') \
        .wait_for(timeout=30_000)
