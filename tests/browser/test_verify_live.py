"""A reviewer sees another reviewer's save on the problem they have open, and a newly generated
file in the list, without navigating or pressing Refresh."""

from __future__ import annotations

import re

import pytest
from unit.review.test_verification import SCORES, write_problems

from browser.test_verify_tab import open_panel
from evalui.review import queue as assignment
from evalui.ui.refresh import FILES_REFRESH_ENV, REVIEWS_REFRESH_ENV

pytestmark = pytest.mark.browser
WAIT = 60_000  # generous: only a hang fails
# The lists and the open problem re-read every second instead of every 15 and 4.
QUICK = {FILES_REFRESH_ENV: "1", REVIEWS_REFRESH_ENV: "1"}


def test_another_reviewers_save_and_a_new_file_appear_by_themselves(browser, launch_app, tmp_path):
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    data_file = write_problems(folder, 4)  # open_panel expects four
    url = launch_app(QUICK)
    context, ana = open_panel(browser, url, "ana")
    assert "not reviewed yet" in ana.locator("#verify-where").inner_text()

    # Ben saves the problem ana has open, from another process's point of view: straight into the file.
    assignment.record_review(data_file, "gen-0000", {**SCORES, "correctness": 1}, "rejected", "the answer is 12", "ben")
    ana.locator("#verify-where").filter(has_text="reviewed by ben").wait_for(timeout=WAIT)
    ana.locator("#verify-others").filter(has_text="the answer is 12").wait_for(timeout=WAIT)
    ana.locator("#verify-progress").filter(has_text="Verified 1 of 4").wait_for(timeout=WAIT)
    assert "Problem 1 of 4" in ana.locator("#verify-where").inner_text()  # still where she was

    # A second reviewer who disagrees makes it disputed, on ana's page too.
    assignment.record_review(data_file, "gen-0000", SCORES, "approved", "", "cleo")
    ana.locator("#verify-others").filter(has_text="disputed").wait_for(timeout=WAIT)

    # A run writes a new generated file: it joins the list by itself.
    (folder / "aime_generated_20260202_000000.json").write_text(data_file.read_text())
    ana.locator("#verify-file input").click()
    ana.get_by_role("option", name=re.compile("aime_generated_20260202_000000")).wait_for(timeout=WAIT)
    context.close()


def test_a_new_generated_file_joins_the_aime_results_list_by_itself(browser, launch_app, tmp_path):
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    write_problems(folder, 2)
    url = launch_app(QUICK)
    page = browser.new_page()
    page.goto(url)
    page.get_by_role("tab", name="AIME results").click()
    page.locator("#aime-file input").click()
    page.get_by_role("option", name=re.compile("aime_generated_20260101_000000")).wait_for(timeout=WAIT)
    assert page.get_by_role("option", name=re.compile("aime_generated_20260303_000000")).count() == 0
    page.get_by_role("tab", name="AIME results").click()  # closes the list
    page.get_by_role("option").first.wait_for(state="hidden", timeout=WAIT)
    (folder / "aime_generated_20260303_000000.json").write_text((folder / "aime_generated_20260101_000000.json").read_text())
    page.locator("#aime-file input").click()
    page.get_by_role("option", name=re.compile("aime_generated_20260303_000000")).wait_for(timeout=WAIT)
