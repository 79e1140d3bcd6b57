"""A multi-turn sample of the BFCL tab, turn by turn, in the tab's viewer (a real browser), with where
its state differs from the gold's, and the per-turn view that /bfcl_turns serves."""

from __future__ import annotations

import html
import re

import pytest
from gradio_client import Client

from support.bfcl_multi_turn_run import HOSTILE_REPLY, seed_multi_turn_run

pytestmark = pytest.mark.browser


def seed_run(data_dir, monkeypatch) -> str:
    """The stored run with a state mismatch (support.bfcl_multi_turn_run), in the app's data folder."""
    from evalui.store.run_store import RunStore

    monkeypatch.setenv("EVALUI_DATA_DIR", str(data_dir))
    store = RunStore()
    try:
        return seed_multi_turn_run(store)
    finally:
        store.close()


def test_a_multi_turn_sample_turn_by_turn(browser, launch_app, tmp_path, monkeypatch):
    seed_run(tmp_path / "data", monkeypatch)
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
    assert HOSTILE_REPLY in answer  # shown as text ...
    assert view.locator("img").count() == 0 and not dialogs  # ... never as markup

    # Where the state differs from the gold's: after turn 2 (the checker's turn 1), the file system's
    # root, the log file left in the workspace by the model and moved into the archive by the gold.
    differs = view.locator('.evalui-verdict-heading[data-key="viewer.state_differs"]')
    assert differs.inner_text() == "State after turn 2 differs from the gold's: GorillaFileSystem"
    cells = view.locator(".evalui-verdict-table tbody tr").first.locator("td").all_inner_texts()
    assert cells[0] == "root" and view.locator(".evalui-verdict-table th").all_inner_texts() == [
        "attribute", "model's value", "gold's value"]
    model_value, gold_value = cells[1], cells[2]
    assert "'archive': <Directory: archive, Parent: workspace, Contents: {}>" in model_value
    assert "'archive': <Directory: archive, Parent: workspace, Contents: {'log.txt'" in gold_value
    assert differs.bounding_box()["width"] > 0 and view.locator(".evalui-verdict-table").is_visible()
    # The checker's record counts turns from 1 too.
    assert "failed_turn: turn 2" in view.locator('pre[data-role="checker"]').text_content()

    # The gold conversation: correct, and its gold has every turn.
    page.locator('#bfcl-viewer-list tr[data-id="multi_turn_base_0"]').click()
    correct = page.locator('#bfcl-inspector-detail [data-sample="multi_turn_base_0"][data-verdict="correct"]')
    correct.wait_for(timeout=30_000)
    gold = correct.locator('pre[data-role="gold"]').inner_text()
    assert [line for line in gold.splitlines() if line.startswith("Turn")] == ["Turn 1", "Turn 2", "Turn 3", "Turn 4"]
    assert correct.locator(".evalui-verdict-table").count() == 0
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
