"""A review needs a reviewer and every score, in real Chromium: the score radios start unset, saving
without a name or with a score unset is refused with a message naming what is missing and writes
nothing, and named reviews land in the file, one per reviewer."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect
from unit.review.test_verification import write_problems

from browser.verify_steps import DIMENSIONS, checked_scores, score
from evalui.review import reviews as verification

pytestmark = pytest.mark.browser

WAIT = 30_000
UNSET = dict.fromkeys(DIMENSIONS)


def open_panel(browser, url):
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.get_by_role("tab", name="Verification").click()
    page.get_by_text("Adjudication of disputed problems", exact=True).click()  # its form is checked too
    page.locator("#verify-file input").click()
    page.get_by_role("option", name=re.compile("aime_generated_")).first.click()
    expect(page.locator("#verify-where")).to_contain_text("Problem 1 of 3", timeout=WAIT)
    return context, page


def save_and_read(page, expected: str) -> str:
    page.locator("#verify-save").click()
    box = page.locator("#verify-message")
    expect(box).to_contain_text(expected, timeout=WAIT)
    return box.inner_text().strip()


def test_saving_needs_a_name_and_every_score_and_named_reviews_land_in_the_file(browser, launch_app, tmp_path):
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    data = write_problems(folder, 3)
    reviews_file = verification.verifications_path(data)
    url = launch_app({})
    context, page = open_panel(browser, url)
    name_box = page.locator("#verify-reviewer").get_by_role("textbox")

    # Nothing is preselected: no score nudges the reviewer, in the review form and the adjudication form.
    assert checked_scores(page) == UNSET
    assert checked_scores(page, "verify-adjudicate") == UNSET
    expect(name_box).to_have_attribute("placeholder", re.compile("required to save"))

    # Everything but a name: refused, and the message says the name is what is missing.
    score(page, {"correctness": 5, "clarity": 4, "difficulty_match": 3, "completeness": 4})
    page.locator("#verify-status").get_by_text("approved", exact=True).click()
    assert save_and_read(page, "Not saved") == "⚠️ Not saved. Still needed: your name (reviews are kept per reviewer)."
    page.locator(".toast-body").filter(has_text="your name").first.wait_for(timeout=10_000)
    assert not reviews_file.exists()

    # The label older versions gave unnamed reviews is nobody's name.
    name_box.fill("Anonymous")
    assert "kept for reviews saved without a name" in save_and_read(page, "“Anonymous”")
    assert not reviews_file.exists()

    # On the next problem the scores are unset again; with two of them left unset, both are named.
    page.locator("#verify-next").click()
    expect(page.locator("#verify-where")).to_contain_text("Problem 2 of 3", timeout=WAIT)
    expect(page.locator("#verify-correctness input[type=radio]:checked")).to_have_count(0, timeout=WAIT)
    assert checked_scores(page) == UNSET
    name_box.fill("ana")
    score(page, {"correctness": 2, "difficulty_match": 5})
    page.locator("#verify-status").get_by_text("rejected", exact=True).click()
    assert save_and_read(page, "clarity") == \
        "⚠️ Not saved. Still needed: a score from 1 to 5 for clarity, completeness."
    assert not reviews_file.exists()

    score(page, {"clarity": 1, "completeness": 3})
    save_and_read(page, "Saved gen-0001.")
    expect(page.locator("#verify-where")).to_contain_text("reviewed by ana", timeout=WAIT)
    entry = json.loads(reviews_file.read_text())["gen-0001"]
    assert entry["reviewer"] == "ana" and entry["status"] == "rejected"
    assert entry["scores"] == {"correctness": 2, "clarity": 1, "difficulty_match": 5, "completeness": 3}
    assert list(json.loads(reviews_file.read_text())) == ["gen-0001"]  # the refused saves wrote nothing
    assert checked_scores(page) == entry["scores"]  # the form shows ana's own saved scores

    # A second named reviewer's review of the same problem sits beside ana's; neither replaces the other.
    other, ben = open_panel(browser, url)
    ben.locator("#verify-reviewer").get_by_role("textbox").fill("ben")
    ben.locator("#verify-next").click()
    expect(ben.locator("#verify-others")).to_contain_text("ana", timeout=WAIT)
    assert checked_scores(ben) == UNSET  # ana's scores are hers; ben starts from nothing
    score(ben, {"correctness": 4, "clarity": 4, "difficulty_match": 4, "completeness": 4})
    ben.locator("#verify-status").get_by_text("approved", exact=True).click()
    save_and_read(ben, "Saved gen-0001.")
    stored = json.loads(reviews_file.read_text())["gen-0001"]["reviews"]
    assert [(r["reviewer"], r["status"]) for r in stored] == [("ana", "rejected"), ("ben", "approved")]
    other.close()
    context.close()
