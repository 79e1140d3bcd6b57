"""The BFCL tab's per-turn view of a multi-turn sample, in a real browser."""

from __future__ import annotations

import re

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.browser
CATEGORY = "multi_turn_base"


def seed_run(data_dir) -> str:
    """Two conversations: entry 0 answered with gold calls, entry 1 with turn 1's move left out and a
    hostile HTML reply, so its view shows a state difference and inert text."""
    import os

    from evalui.store.run_store import RunStore

    def drop_for_entry_1(entry, turn, calls):
        return calls[:-1] if entry.id.endswith("_1") and turn == 1 else calls

    oracle = MultiTurnOracle([CATEGORY], limit=2, perturb=drop_for_entry_1)

    def script(body, n):
        entry = oracle.entry_for(body)
        turn, step = oracle.position(body)
        if entry is not None and entry.id.endswith("_1") and turn == 1 and step == 1:
            return completion("<img src=x onerror=alert(1)>done")
        return oracle.reply(body)

    os.environ["EVALUI_DATA_DIR"] = str(data_dir)
    store = RunStore()
    try:
        with ScriptedPeer(script) as peer:
            exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=2, mode="fc"),
                                       settings_for(peer), exp_id="mt-view")
            lifecycle.execute(store, exp_id, settings_for(peer), concurrency=2)
    finally:
        store.close()
    return exp_id


def test_a_multi_turn_sample_turn_by_turn(browser, launch_app, tmp_path):
    seed_run(tmp_path / "data")
    url = launch_app({})
    page = browser.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    page.locator("#bfcl-runs input").click()
    page.get_by_role("option", name=re.compile("mt-view")).first.click()
    table = page.locator("#bfcl-samples")
    table.get_by_text("multi_turn_base_1").first.wait_for(timeout=30_000)

    # A click on the row opens that sample's turns.
    table.get_by_text("multi_turn_base_1").first.click()
    view = page.locator("#bfcl-turns-view")
    view.get_by_text("Turn 3").wait_for(timeout=30_000)
    text = view.inner_text()
    assert "multi_turn_base_1" in text and "state_mismatch" in text
    assert "Turn 1 (the check failed here)" in text and "mv(source='log.txt',destination='archive')" in text
    assert "Gold calls:" in text and "State differs in" in text
    assert "call: cd(" in text and "result:" in text
    assert "<img src=x onerror=alert(1)>done" in text  # shown as text ...
    assert view.locator("img").count() == 0 and not dialogs  # ... never as markup

    # Or typed: the gold conversation shows every turn, and no difference.
    page.locator("#bfcl-turns-id textarea, #bfcl-turns-id input").first.fill("multi_turn_base_0")
    page.locator("#bfcl-turns-show").click()
    view.filter(has_text="multi_turn_base_0 — ✅ correct").wait_for(timeout=30_000)
    assert "State differs" not in view.inner_text()
    assert view.inner_text().count("Gold calls:") == 4
    page.screenshot(path=str(tmp_path / "bfcl-turns.png"), full_page=True)
