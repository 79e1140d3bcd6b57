"""Run the GAIA tool agent from the GAIA tab and open a task's transcript."""

from __future__ import annotations

import json
import re

import pytest
from peers import SENTINEL_KEY

from browser.pages import open_tab
from support.openai_peer import ScriptedPeer, completion, first_user_text, tool_outputs

pytestmark = pytest.mark.browser

SUM_UNITS = "import csv\nprint(sum(int(r['units']) for r in csv.DictReader(open('orders.csv'))) * 1000 + 7)"


def script(body, n):
    question, outputs = first_user_text(body), tool_outputs(body)
    if body.get("max_tokens") == 1:
        return completion("ok")  # the endpoint check before the run
    if "units were ordered" in question:
        if not outputs:
            return completion("", tool_calls=[("python", json.dumps({"code": SUM_UNITS}))])
        printed = outputs[-1].split("stdout:\n", 1)[1].split()[0]
        # The program printed units * 1000 + 7: only running it on the attachment gives 10007.
        return completion(f"<b>bold?</b> FINAL ANSWER: {int(printed) // 1000 if printed == '10007' else 'no'}")
    return completion("FINAL ANSWER: Au")


def test_agent_run_from_the_tab_and_its_transcript(browser, launch_app, tmp_path):
    with ScriptedPeer(script) as peer:
        url = launch_app({"OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": SENTINEL_KEY})
        page = open_tab(browser, url, "GAIA")
        page.locator("#gaia-level").get_by_text("1", exact=True).click()
        page.locator("#gaia-tools").get_by_text("python", exact=True).click()
        page.locator("#gaia-tools").get_by_text("files", exact=True).click()
        page.locator("#gaia-start").click()
        status = page.locator("#gaia-status")
        status.filter(has_text=re.compile(r"finished · 2/2 done")).wait_for(timeout=60_000)
        status.filter(has_text="(100.0%)").wait_for(timeout=30_000)
        page.locator("#gaia-transcript-task input").click()
        page.locator("#gaia-transcript-task").get_by_role("option", name="evalui-sample-0002").click()
        shown = page.locator("#gaia-transcript .gaia-transcript")
        shown.filter(has_text="Step 2").wait_for(timeout=30_000)
        text = shown.inner_text()
        assert "calls python" in text and "csv.DictReader(open('orders.csv'))" in text
        assert "10007" in text and "answer: 10" in text and "correct" in text
        assert page.locator("#gaia-transcript b", has_text="bold?").count() == 0  # the model's markup stays text
        assert "<b>bold?</b>" in text
        bodies = [r.body for r in peer.chat_requests()]
        assert any({t["function"]["name"] for t in b.get("tools", [])} == {"python", "files"} for b in bodies)
        page.screenshot(path=str(tmp_path / "gaia-agent.png"), full_page=True)
        assert SENTINEL_KEY not in page.content()
