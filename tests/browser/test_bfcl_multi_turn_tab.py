"""A multi-turn sample of the BFCL tab, turn by turn, in the tab's viewer (a real browser), and the
per-turn view that /bfcl_turns serves."""

from __future__ import annotations

import html
import re

import pytest
from gradio_client import Client
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
    listed = page.locator('#bfcl-viewer-list tr[data-id="multi_turn_base_1"]')
    listed.wait_for(timeout=30_000)

    # A click on the row opens the sample in the viewer: its answer and gold turn by turn, as calls.
    listed.click()
    view = page.locator('#bfcl-inspector-detail .evalui-transcript[data-sample="multi_turn_base_1"][data-verdict="wrong"]')
    view.wait_for(timeout=30_000)
    assert "state_mismatch" in view.inner_text()
    answer = view.locator('pre[data-role="answer"]').inner_text()
    gold = view.locator('pre[data-role="gold"]').inner_text()
    assert [line for line in answer.splitlines() if line.startswith("Turn")] == ["Turn 1", "Turn 2", "Turn 3", "Turn 4"]
    turn_2 = gold.split("Turn 2", 1)[1].split("Turn 3", 1)[0]
    assert 'mv(source="log.txt", destination="archive")' in turn_2  # the move the model left out
    assert 'mv(' not in answer.split("Turn 2", 1)[1].split("Turn 3", 1)[0]
    calls = view.locator('details[data-kind="tool-call"] summary').all_inner_texts()
    assert any("cd(" in call for call in calls) and view.locator('details[data-kind="tool-result"]').count() > 0
    assert "<img src=x onerror=alert(1)>done" in answer  # shown as text ...
    assert view.locator("img").count() == 0 and not dialogs  # ... never as markup

    # The gold conversation: correct, and its gold has every turn.
    page.locator('#bfcl-viewer-list tr[data-id="multi_turn_base_0"]').click()
    correct = page.locator('#bfcl-inspector-detail [data-sample="multi_turn_base_0"][data-verdict="correct"]')
    correct.wait_for(timeout=30_000)
    gold = correct.locator('pre[data-role="gold"]').inner_text()
    assert [line for line in gold.splitlines() if line.startswith("Turn")] == ["Turn 1", "Turn 2", "Turn 3", "Turn 4"]
    page.screenshot(path=str(tmp_path / "bfcl-turns.png"), full_page=True)

    # /bfcl_turns (API only now) gives the whole per-turn view, where the state differs included,
    # numbered from 1 as the viewer numbers the turns.
    client = Client(url)
    client.predict("mt-view", api_name="/bfcl_show")
    text = html.unescape(client.predict("multi_turn_base_1", api_name="/bfcl_turns"))  # Markdown, its text escaped
    assert "Turn 4" in text and "Turn 0" not in text and "state_mismatch" in text
    assert "Turn 2 (the check failed here)" in text and "mv(source='log.txt',destination='archive')" in text
    assert "Gold calls:" in text and "State differs in" in text
    assert "call: cd(" in text and "result:" in text
    correct_turns = html.unescape(client.predict("multi_turn_base_0", api_name="/bfcl_turns"))
    assert "multi_turn_base_0 — ✅ correct" in correct_turns and "State differs" not in correct_turns
    assert correct_turns.count("Gold calls:") == 4
