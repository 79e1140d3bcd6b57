"""Run GAIA's bundled sample from the browser and read the per-task verdicts."""

from __future__ import annotations

import json
import re

import pytest
from integration.benchmarks.gaia.test_gaia import answering_script
from peers import SENTINEL_KEY
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from browser.pages import attach, open_tab
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser


def test_run_gaia_sample_in_the_browser(browser, launch_app, tmp_path):
    def slow(body, n):
        reply = answering_script(body, n)
        reply.delay_s = 0.4
        return reply

    with ScriptedPeer(slow) as peer:
        url = launch_app({"OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": SENTINEL_KEY})
        page = open_tab(browser, url, "GAIA")
        page.locator("#gaia-level").get_by_text("2", exact=True).click()
        page.locator("#gaia-start").click()
        status = page.locator("#gaia-status")
        status.filter(has_text=re.compile(r"2/2 done")).wait_for(timeout=60_000)
        status.filter(has_text="(100.0%)").wait_for(timeout=30_000)
        page.locator("#gaia-level-plot .js-plotly-plot").wait_for(timeout=30_000)
        # The viewer lists the tasks (the run page has no task table) and shows each one's answer.
        listed = page.locator("#gaia-viewer-list tr[data-id]")
        expect(listed).to_have_count(2, timeout=30_000)  # level 1 was filtered out
        assert {row.get_attribute("data-id") for row in listed.all()} == {"evalui-sample-0003", "evalui-sample-0004"}
        answers = []
        for task in ("evalui-sample-0003", "evalui-sample-0004"):
            pane = page.locator(f'#gaia-inspector-detail .evalui-transcript[data-sample="{task}"][data-verdict="correct"]')
            for attempt in range(3):  # a click on a row the list was redrawing over (the run's end) is lost
                page.locator(f'#gaia-viewer-list tr[data-id="{task}"]').click()
                try:
                    pane.wait_for(timeout=15_000)
                    break
                except PlaywrightTimeout:
                    if attempt == 2:
                        raise
            answers.append(pane.locator('pre[data-role="answer"]').first.inner_text())
        assert "Mercury, Venus, Earth" in answers[0] and "red" in answers[1]
        page.screenshot(path=str(tmp_path / "gaia-done.png"), full_page=True)
        assert SENTINEL_KEY not in page.content()
        # Two tasks.
        assert [r.body.get("max_tokens") for r in peer.probes] == [1]  # the endpoint check, answered apart
        assert len(peer.chat_requests()) == 2


def test_hidden_answers_are_unscored_not_zero(browser, launch_app, tmp_path):
    questions = tmp_path / "test_split.json"
    questions.write_text(json.dumps([{"Question": "What is the chemical symbol of gold?", "Final answer": "?"},
                                     {"Question": "What colour is the sky on a clear day?", "Final answer": "?"}]))
    with ScriptedPeer(answering_script) as peer:
        url = launch_app({"OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": SENTINEL_KEY})
        page = open_tab(browser, url, "GAIA")
        page.locator("#gaia-source").get_by_text("Uploaded JSON file", exact=True).click()
        attach(page, "gaia-upload", questions)
        page.locator("#gaia-start").click()
        status = page.locator("#gaia-status")
        status.filter(has_text="finished · 2/2 done").wait_for(timeout=60_000)
        assert "unscored" in status.inner_text() and "%" not in status.inner_text()
        # The viewer calls a hidden answer's task unscored, and shows what the model answered.
        unscored = page.locator('#gaia-viewer-list tr[data-id] td[data-col="verdict"]')
        unscored.first.wait_for(timeout=30_000)
        assert [cell.inner_text().strip() for cell in unscored.all()] == ["unscored", "unscored"]
        page.locator("#gaia-viewer-list tr[data-id]").first.click()  # the gold question, asked first
        pane = page.locator('#gaia-inspector-detail .evalui-transcript[data-verdict="unscored"]')
        pane.wait_for(timeout=30_000)
        assert "Au" in pane.locator('pre[data-role="answer"]').first.inner_text()
