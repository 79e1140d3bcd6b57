"""Two reviewers in two browser contexts on one file with each problem to two reviewers and blind
mode on: the second reviewer sees nothing of the first one's review until saving, and each
reviewer's "needs my review" queue advances as they save."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect
from unit.review.test_verification import SCORES, write_problems

from browser.verify_steps import score
from evalui.review import reviews as verification

pytestmark = pytest.mark.browser

WAIT = 30_000


def open_as(browser, url, reviewer, accordion=None):
    """Open the panel as ``reviewer`` on the first data file, with ``accordion`` opened before the file.

    Opening an accordion mounts its inputs then; opened first, they are long in place when the file's
    values arrive, so a test does not type into inputs that are still being wired up."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.get_by_role("tab", name="Verification").click()
    if accordion:
        page.get_by_text(accordion, exact=True).click()
    page.locator("#verify-reviewer").get_by_role("textbox").fill(reviewer)
    page.locator("#verify-file input").click()
    page.get_by_role("option", name=re.compile("aime_generated_")).first.click()
    expect(page.locator("#verify-where")).to_contain_text("Problem 1 of 3", timeout=WAIT)
    return context, page


def save(page, status, comment=""):
    score(page, SCORES)
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
    context_a, ana = open_as(browser, url, "ana", accordion="Assignment")

    # ana sets the assignment: every problem to two reviewers, blind.
    expect(ana.locator("#verify-overlap input")).to_have_value("1", timeout=WAIT)  # the file's setting
    expect(ana.locator("#verify-blind input")).not_to_be_checked()
    ana.locator("#verify-overlap input").fill("2")
    ana.locator("#verify-blind input").check()
    expect(ana.locator("#verify-overlap input")).to_have_value("2")
    expect(ana.locator("#verify-blind input")).to_be_checked()
    ana.locator("#verify-save-settings").click()
    expect(ana.locator("#verify-message")).to_contain_text("Each problem now goes to 2 reviewer(s); blind mode on.", timeout=WAIT)
    expect(ana.locator("#verify-judge")).to_contain_text("hidden until you save", timeout=WAIT)

    save(ana, "rejected", "ana-private-note")
    expect(ana.locator("#verify-where")).to_contain_text("reviewed by ana", timeout=WAIT)
    expect(ana.locator("#verify-progress")).to_contain_text("2 need your review", timeout=WAIT)
    expect(ana.locator("#verify-judge")).to_contain_text("LLM judge", timeout=WAIT)  # saved: the judge shows

    context_b, ben = open_as(browser, url, "ben")
    expect(ben.locator("#verify-others")).to_contain_text("1 review(s) by others, hidden until you save yours", timeout=WAIT)
    expect(ben.locator("#verify-progress")).to_contain_text("3 need your review", timeout=WAIT)
    assert "ana-private-note" not in ben.content() and "rejected" not in ben.locator("#verify-where").inner_text()
    expect(ben.locator("#verify-judge")).to_contain_text("hidden until you save", timeout=WAIT)
    assert ben.locator("#verify-comments").get_by_role("textbox").input_value() == ""

    save(ben, "approved", "ben-note")
    expect(ben.locator("#verify-others")).to_contain_text("ana-private-note", timeout=WAIT)  # now he sees it
    assert "ben-note" in ben.locator("#verify-others").inner_text()
    expect(ben.locator("#verify-progress")).to_contain_text("2 need your review", timeout=WAIT)
    expect(ben.locator("#verify-disagreements")).to_contain_text("gen-0000", timeout=WAIT)  # statuses differ

    # The queues advance: each reviewer's next problem is the next one still needing them.
    ben.locator("#verify-next-unverified").click()
    expect(ben.locator("#verify-where")).to_contain_text("Problem 2 of 3", timeout=WAIT)
    save(ben, "approved")
    expect(ben.locator("#verify-progress")).to_contain_text("1 need your review", timeout=WAIT)
    ben.keyboard.press("Alt+u")
    expect(ben.locator("#verify-where")).to_contain_text("Problem 3 of 3", timeout=WAIT)

    ana.locator("#verify-next-unverified").click()
    expect(ana.locator("#verify-where")).to_contain_text("Problem 2 of 3", timeout=WAIT)
    expect(ana.locator("#verify-others")).to_contain_text("hidden until you save yours", timeout=WAIT)
    save(ana, "approved")
    expect(ana.locator("#verify-progress")).to_contain_text("1 need your review", timeout=WAIT)
    ana.locator("#verify-next-unverified").click()
    expect(ana.locator("#verify-where")).to_contain_text("Problem 3 of 3", timeout=WAIT)
    assert "ana-private-note" not in ben.locator("#verify-others").inner_text()  # ben is on problem 3 now

    entries = json.loads(verification.verifications_path(data_file).read_text())
    assert [r["reviewer"] for r in entries["gen-0000"]["reviews"]] == ["ana", "ben"]
    assert [r["reviewer"] for r in entries["gen-0001"]["reviews"]] == ["ben", "ana"]
    context_a.close()
    context_b.close()
