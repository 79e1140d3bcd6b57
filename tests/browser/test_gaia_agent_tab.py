"""Run the GAIA tool agent from the GAIA tab and open a task's transcript in the tab's viewer."""

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
        # The task's transcript is the viewer's: its steps, the python call and its result.
        page.locator('#gaia-viewer-list tr[data-id="evalui-sample-0002"]').click()
        shown = page.locator('#gaia-inspector-detail .evalui-transcript[data-sample="evalui-sample-0002"]'
                             '[data-verdict="correct"]')
        shown.wait_for(timeout=30_000)
        text = shown.text_content()  # folded calls and results included
        assert "2 step(s)" in text and "step 2" in text
        assert "python" in shown.locator('details[data-kind="tool-call"] summary').first.inner_text()
        assert "csv.DictReader(open('orders.csv'))" in text and "10007" in text
        assert shown.locator('pre[data-role="answer"]').first.inner_text().strip() == "10"
        assert page.locator("#gaia-inspector-detail b", has_text="bold?").count() == 0  # the model's markup stays text
        assert "<b>bold?</b>" in text
        bodies = [r.body for r in peer.chat_requests()]
        assert any({t["function"]["name"] for t in b.get("tools", [])} == {"python", "files"} for b in bodies)
        page.screenshot(path=str(tmp_path / "gaia-agent.png"), full_page=True)
        assert SENTINEL_KEY not in page.content()
