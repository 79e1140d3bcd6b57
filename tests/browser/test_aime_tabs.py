"""Generate AIME problems in the browser (LaTeX rendered as they arrive), then judge and compare them."""

from __future__ import annotations

import re

import pytest
from aime_script import AimeScript
from playwright.sync_api import expect

from browser.pages import open_tab
from support.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.browser


def with_endpoint_check(script):
    """The scripted generator and judge, also answering the one-token check made before each run."""
    return lambda body, n: completion("OK") if body.get("max_tokens") == 1 else script(body, n)


def test_generate_judge_and_winrate_in_the_browser(browser, launch_app, tmp_path):
    with ScriptedPeer(with_endpoint_check(AimeScript())) as peer:
        url = launch_app({"OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": "sk-x", "HF_HUB_OFFLINE": "1"})
        page = open_tab(browser, url, "AIME generation", model="generator")
        page.locator("#aime-count input").fill("3")
        page.locator("#aime-references").get_by_text("Bundled sample", exact=True).click()
        page.locator("#aime-start").click()
        page.locator("#aime-status").filter(has_text="3/3 done").wait_for(timeout=60_000)
        problems = page.locator("#aime-problems")
        # The box grows a problem at a time and is typeset after its text is drawn (KaTeX loads first):
        # at "3/3 done" it may still show an earlier value, so the last problem and its formulas are waited for.
        expect(problems).to_contain_text("gen-0003", timeout=30_000)
        expect(problems.locator(".katex").nth(5)).to_be_attached(timeout=30_000)  # six formulas rendered, not raw
        page.screenshot(path=str(tmp_path / "aime-generated.png"), full_page=True)

        page.get_by_role("tab", name="AIME results").click()
        page.locator("#aime-file-refresh").click()
        page.locator("#aime-file input").click()
        page.get_by_role("option", name=re.compile("aime_generated_")).first.click()
        page.locator("#aime-judge-model").get_by_role("textbox").fill("judge")
        page.locator("#aime-judge-start").click()
        page.locator("#aime-judge-status").filter(has_text="3/3 done").wait_for(timeout=60_000)
        page.locator("#aime-judge-plot .js-plotly-plot").wait_for(timeout=30_000)
        page.locator("#aime-winrate-start").click()
        page.locator("#aime-winrate-status").filter(has_text="3/3 done").wait_for(timeout=60_000)
        page.locator("#aime-winrate-plot .js-plotly-plot").wait_for(timeout=30_000)
        # The files are one menu, closed until opened.
        page.locator("#aime-results-downloads-menu").get_by_text("Downloads").first.click()
        page.locator("#aime-results-downloads a[download]").first.wait_for(timeout=30_000)
        downloads = " ".join(page.locator("#aime-results-downloads a[download]").evaluate_all(
            "links => links.map(link => link.getAttribute('download'))"))
        assert "_report" in downloads and "_judge_report" in downloads and "_winrate" in downloads
        page.screenshot(path=str(tmp_path / "aime-results.png"), full_page=True)

        # "Review these problems" opens the same file in the verification panel.
        page.locator("#aime-review").click()
        page.locator("#verify-where").filter(has_text="Problem 1 of 3").wait_for(timeout=30_000)
        page.locator("#verify-judge").filter(has_text="correctness").wait_for(timeout=30_000)  # judge scores beside it
    judge_models = {r.body["model"] for r in peer.chat_requests()}
    assert judge_models == {"generator", "judge"}
