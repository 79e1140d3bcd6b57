"""Two reviewers in two browser contexts on one file with each problem to two reviewers and blind
mode on: the second reviewer sees nothing of the first one's review until saving, and each
reviewer's "needs my review" queue advances as they save."""

from __future__ import annotations

import json
import re

import pytest
from test_verification import write_problems

from evalui import verification

pytestmark = pytest.mark.browser

WAIT = 30_000


def open_as(browser, url, reviewer):
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.get_by_role("tab", name="Verification").click()
    page.locator("#verify-reviewer").get_by_role("textbox").fill(reviewer)
    page.locator("#verify-file input").click()
    page.get_by_role("option", name=re.compile("aime_generated_")).first.click()
    page.locator("#verify-where").filter(has_text="Problem 1 of 3").wait_for(timeout=WAIT)
    return context, page


def save(page, status, comment=""):
    page.locator("#verify-status").get_by_text(status, exact=True).click()
    page.locator("#verify-comments").get_by_role("textbox").fill(comment)
    page.locator("#verify-save").click()


def test_blind_mode_and_the_queue_with_two_reviewers(browser, launch_app, tmp_path):
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    data_file = write_problems(folder, 3)
    (folder / f"{data_file.stem}_judge.json").write_text(json.dumps({"results": [
        {"problem_id": "gen-0000", "scores": {d: {"score": 5, "comment": ""} for d in
                                              ("correctness", "clarity", "difficulty_match", "completeness")}}]}))
    url = launch_app({})
    context_a, ana = open_as(browser, url, "ana")

    # ana sets the assignment: every problem to two reviewers, blind.
    ana.get_by_text("Assignment", exact=True).click()
    ana.locator("#verify-overlap input").fill("2")
    ana.locator("#verify-blind input").check()
    ana.locator("#verify-save-settings").click()
    ana.locator("#verify-message").filter(has_text="Each problem now goes to 2 reviewer(s); blind mode on.") \
        .wait_for(timeout=WAIT)
    ana.locator("#verify-judge").filter(has_text="hidden until you save").wait_for(timeout=WAIT)

    save(ana, "rejected", "ana-private-note")
    ana.locator("#verify-where").filter(has_text="reviewed by ana").wait_for(timeout=WAIT)
    ana.locator("#verify-progress").filter(has_text="2 need your review").wait_for(timeout=WAIT)
    ana.locator("#verify-judge").filter(has_text="LLM judge").wait_for(timeout=WAIT)  # saved: the judge shows

    context_b, ben = open_as(browser, url, "ben")
    ben.locator("#verify-others").filter(has_text="1 review(s) by others, hidden until you save yours") \
        .wait_for(timeout=WAIT)
    ben.locator("#verify-progress").filter(has_text="3 need your review").wait_for(timeout=WAIT)
    assert "ana-private-note" not in ben.content() and "rejected" not in ben.locator("#verify-where").inner_text()
    assert "hidden until you save" in ben.locator("#verify-judge").inner_text()
    assert ben.locator("#verify-comments").get_by_role("textbox").input_value() == ""

    save(ben, "approved", "ben-note")
    ben.locator("#verify-others").filter(has_text="ana-private-note").wait_for(timeout=WAIT)  # now he sees it
    assert "ben-note" in ben.locator("#verify-others").inner_text()
    ben.locator("#verify-progress").filter(has_text="2 need your review").wait_for(timeout=WAIT)
    ben.locator("#verify-disagreements").filter(has_text="gen-0000").wait_for(timeout=WAIT)  # statuses differ

    # The queues advance: each reviewer's next problem is the next one still needing them.
    ben.locator("#verify-next-unverified").click()
    ben.locator("#verify-where").filter(has_text="Problem 2 of 3").wait_for(timeout=WAIT)
    save(ben, "approved")
    ben.locator("#verify-progress").filter(has_text="1 need your review").wait_for(timeout=WAIT)
    ben.keyboard.press("Alt+u")
    ben.locator("#verify-where").filter(has_text="Problem 3 of 3").wait_for(timeout=WAIT)

    ana.locator("#verify-next-unverified").click()
    ana.locator("#verify-where").filter(has_text="Problem 2 of 3").wait_for(timeout=WAIT)
    ana.locator("#verify-others").filter(has_text="hidden until you save yours").wait_for(timeout=WAIT)
    save(ana, "approved")
    ana.locator("#verify-progress").filter(has_text="1 need your review").wait_for(timeout=WAIT)
    ana.locator("#verify-next-unverified").click()
    ana.locator("#verify-where").filter(has_text="Problem 3 of 3").wait_for(timeout=WAIT)
    assert "ana-private-note" not in ben.locator("#verify-others").inner_text()  # ben is on problem 3 now

    entries = json.loads(verification.verifications_path(data_file).read_text())
    assert [r["reviewer"] for r in entries["gen-0000"]["reviews"]] == ["ana", "ben"]
    assert [r["reviewer"] for r in entries["gen-0001"]["reviews"]] == ["ben", "ana"]
    context_a.close()
    context_b.close()
