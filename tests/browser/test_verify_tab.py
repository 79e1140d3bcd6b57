"""Two reviewers in two browser contexts save different problems at the same moment; both reviews land."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect
from unit.review.test_verification import SCORES, write_problems

from browser.verify_steps import DIMENSIONS, checked_scores, score
from evalui.review import reviews as verification

pytestmark = pytest.mark.browser


def open_panel(browser, url, reviewer):
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.get_by_role("tab", name="Verification").click()
    page.locator("#verify-file input").click()
    page.get_by_role("option", name=re.compile("aime_generated_")).first.click()
    page.locator("#verify-where").filter(has_text="Problem 1 of 4").wait_for(timeout=30_000)
    page.locator("#verify-reviewer").get_by_role("textbox").fill(reviewer)
    return context, page


def test_two_reviewers_at_once(browser, launch_app, tmp_path):
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    data_file = write_problems(folder, 4)
    url = launch_app({})
    context_a, ana = open_panel(browser, url, "ana")
    context_b, ben = open_panel(browser, url, "ben")

    ana.locator("#verify-problem .katex").first.wait_for(timeout=30_000)  # LaTeX rendered
    ben.locator("#verify-next").click()
    ben.locator("#verify-where").filter(has_text="Problem 2 of 4").wait_for(timeout=30_000)
    score(ana, SCORES)
    score(ben, {**SCORES, "correctness": 1})
    ana.locator("#verify-status").get_by_text("approved").click()
    ben.locator("#verify-status").get_by_text("rejected").click()
    ben.locator("#verify-comments").get_by_role("textbox").fill("answer is wrong")

    ana.locator("#verify-save").click(no_wait_after=True)
    ben.keyboard.press("Alt+s")  # the keyboard shortcut clicks Save
    ana.locator("#verify-where").filter(has_text="reviewed by ana").wait_for(timeout=30_000)
    ben.locator("#verify-where").filter(has_text="reviewed by ben").wait_for(timeout=30_000)

    reviews = json.loads(verification.verifications_path(data_file).read_text())
    assert reviews["gen-0000"]["reviewer"] == "ana" and reviews["gen-0000"]["status"] == "approved"
    assert reviews["gen-0001"]["reviewer"] == "ben" and reviews["gen-0001"]["comments"] == "answer is wrong"
    assert reviews["gen-0000"]["scores"] == SCORES and reviews["gen-0001"]["scores"] == {**SCORES, "correctness": 1}

    # Positions are per browser; moving shows the reviewer's own values (none yet here, not stale ones)
    # and, outside blind mode, the others' reviews beside them.
    ana.locator("#verify-next").click()
    ana.locator("#verify-where").filter(has_text="Problem 2 of 4").wait_for(timeout=30_000)
    ana.locator("#verify-where").filter(has_text="reviewed by ben").wait_for(timeout=30_000)
    ana.locator("#verify-others").filter(has_text="answer is wrong").wait_for(timeout=30_000)
    assert ana.locator("#verify-comments").get_by_role("textbox").input_value() == ""
    for dimension in DIMENSIONS:  # ana's own scores on problem 1 are cleared by the move: waited for, not read at once
        expect(ana.locator(f"#verify-{dimension} input[type=radio]:checked")).to_have_count(0, timeout=30_000)
    assert checked_scores(ana) == dict.fromkeys(DIMENSIONS)  # ben's scores are not ana's starting point
    ana.keyboard.press("Alt+ArrowRight")
    ana.locator("#verify-where").filter(has_text="Problem 3 of 4").wait_for(timeout=30_000)
    assert "not reviewed yet" in ana.locator("#verify-where").inner_text()
    assert ana.locator("#verify-comments").get_by_role("textbox").input_value() == ""
    assert "Problem 2 of 4" in ben.locator("#verify-where").inner_text()
    ana.locator("#verify-progress").filter(has_text="Verified 2 of 4").wait_for(timeout=30_000)
    ana.screenshot(path=str(tmp_path / "verify.png"), full_page=True)
    context_a.close()
    context_b.close()
