"""Lists wrap at word boundaries: in the viewer's narrow verdict column (the run page's list of
samples since #38), a verdict word stays whole on one line (Gradio's table style once split
"correct" as "correc t")."""

from __future__ import annotations

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser

# For each cell whose whole text is this word: how many lines its text takes on the page.
LINES_OF_WORD = """word => [...document.querySelectorAll('#bfcl-viewer-list td[data-col="verdict"]')]
    .filter(cell => cell.textContent.trim() === word)
    .map(cell => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        return tops.size;
    })"""


def test_a_verdict_word_is_never_split_inside_a_narrow_column(browser, launch_app, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    oracle = BfclOracle(["simple_python"])
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        store = RunStore()
        settings = settings_for(peer)
        options = BfclOptions(categories=["simple_python"], limit=3, mode="fc")
        lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id="wrap-run"), settings)
        store.close()
    url = launch_app({})
    # The audit's window size, where the verdict column used to split "correct".
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(url)
    page.locator("#bfcl-runs input").click()
    page.get_by_role("option", name="wrap-run").first.click()
    page.locator('#bfcl-viewer-list tr[data-id="simple_python_2"]').wait_for(timeout=30_000)
    lines = page.evaluate(LINES_OF_WORD, "correct")
    assert len(lines) == 3 and set(lines) == {1}, lines
