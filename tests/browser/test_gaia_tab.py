"""Run GAIA's bundled sample from the browser and read the per-task verdicts."""

from __future__ import annotations

import json
import re

import pytest
from integration.benchmarks.gaia.test_gaia import answering_script
from peers import SENTINEL_KEY

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
        tasks = page.locator("#gaia-tasks").inner_text()
        assert "Mercury, Venus, Earth" in tasks and "red" in tasks
        assert "evalui-sample-0001" not in tasks  # level 1 was filtered out
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
        page.locator("#gaia-tasks").filter(has_text="unscored").wait_for(timeout=30_000)
        assert "Au" in page.locator("#gaia-tasks").inner_text()
