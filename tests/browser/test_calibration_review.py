"""The judge's figures corrected by the reviewers, in the browser: two reviewers review problems the
verification panel's "review these next" lists (unreviewed ones only, never reviewed ones), one
answering "better than the reference problem?" without seeing the win-rate judge's outcome, and the
AIME results tab's corrected pass rate and its interval change after their saves."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect
from unit.review.test_verification import SCORES
from unit.ui.test_calibration_views import DIMENSIONS, judge_score, review, write_judged, write_winrate

from browser.pages import choose
from browser.verify_steps import score
from evalui.review import reviews as verification

pytestmark = pytest.mark.browser

WAIT = 30_000
ALREADY = range(10)  # reviewed before the test by "cy": exactly enough for a corrected figure


def pass_rate_row(page) -> str:
    """The pass rate's row of the corrected figures: judge only, reviewers only, corrected, the estimate."""
    row = page.locator("#aime-calibration tr").filter(has_text="pass rate")
    expect(row).to_have_count(1, timeout=WAIT)
    return row.inner_text()


def open_panel(browser, url, reviewer):
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.get_by_role("tab", name="Verification").click()
    page.locator("#verify-file input").click()
    page.get_by_role("option", name=re.compile("aime_generated_")).first.click()
    expect(page.locator("#verify-where")).to_contain_text("Problem 1 of 20", timeout=WAIT)
    page.locator("#verify-reviewer").get_by_role("textbox").fill(reviewer)
    return context, page


def listed_next(page) -> list[str]:
    expect(page.locator("#verify-review-next")).to_contain_text("Review these", timeout=WAIT)
    return re.findall(r"gen-\d{4}", page.locator("#verify-review-next").inner_text())


def review_first_listed(page, better: str | None = None) -> str:
    """Go to the first problem "review these next" lists, score it, answer the comparison, save."""
    target = listed_next(page)[0]
    choose(page, "verify-goto", target)
    expect(page.locator("#verify-where")).to_contain_text(target, timeout=WAIT)
    score(page, SCORES)
    page.locator("#verify-status").get_by_text("approved", exact=True).click()
    if better:
        page.locator("#verify-better").get_by_text(better, exact=True).click()
    page.locator("#verify-save").click()
    expect(page.locator("#verify-message")).to_contain_text(f"Saved {target}.", timeout=WAIT)
    # The list is refreshed with the save: the problem just reviewed has left it.
    expect(page.locator("#verify-review-next")).not_to_contain_text(target, timeout=WAIT)
    return target


def test_reviews_change_the_corrected_figure_and_review_next(browser, launch_app, tmp_path):
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    data_file = write_judged(folder)
    write_winrate(data_file)  # the judge's outcomes: gen-0000, 0004, … win, the others lose
    # cy agrees with the judge but on gen-0000, which the judge passes and cy fails.
    review(data_file, ALREADY, reviewer="cy", human=lambda i: judge_score(i) == 5 and i != 0)
    url = launch_app({})

    results = browser.new_context().new_page()
    results.goto(url)
    results.get_by_role("tab", name="AIME results").click()
    results.locator("#aime-file input").click()
    results.get_by_role("option", name=re.compile("aime_generated_")).first.click()
    expect(results.locator("#aime-calibration")).to_contain_text("10 reviewed", timeout=WAIT)
    expect(results.locator("#aime-calibration")).not_to_contain_text("too small")
    before = pass_rate_row(results)
    assert before.count("%") == 9 and "corrected" in before  # three figures with intervals; the corrected one reported
    results.locator("#aime-calibration-plot .js-plotly-plot").wait_for(timeout=WAIT)
    assert "judge only" in results.locator("#aime-calibration").inner_text()

    context_a, ana = open_panel(browser, url, "ana")
    context_b, ben = open_panel(browser, url, "ben")
    listed = listed_next(ana)
    assert listed and not {f"gen-{i:04d}" for i in ALREADY} & set(listed)  # unreviewed problems only
    assert "after these" in ana.locator("#verify-review-next").inner_text()  # the expected interval

    # ana answers the comparison; nothing on the panel says which way the win-rate judge decided.
    first = review_first_listed(ana, better="yes")
    shown = " ".join(ana.locator(f"#{part}").inner_text() for part in ("verify-reference", "verify-judge",
                                                                        "verify-where", "verify-review-next"))
    assert "compared by the win-rate judge" in shown.lower() and not re.search(r"\b(win|loss|lost|won|tie)\b(?!-rate)", shown)
    expect(ben.locator("#verify-review-next")).not_to_contain_text(first, timeout=WAIT)  # ben's list follows
    second = review_first_listed(ben)
    assert second != first
    for page in (ana, ben):
        expect(page.locator("#verify-review-next")).not_to_contain_text(second, timeout=WAIT)
        assert not {f"gen-{i:04d}" for i in ALREADY} & set(listed_next(page))

    entries = json.loads(verification.verifications_path(data_file).read_text())
    assert entries[first]["reviews"][0]["reviewer"] == "ana"
    assert entries[first]["reviews"][0][verification.PREFERENCE] == "yes"
    assert verification.PREFERENCE not in entries[second]["reviews"][0]
    assert all(set(r["scores"]) == set(DIMENSIONS) for e in entries.values() for r in e["reviews"])

    results.locator("#aime-calibration-refresh").click()
    expect(results.locator("#aime-calibration")).to_contain_text("12 reviewed", timeout=WAIT)
    after = pass_rate_row(results)
    assert after != before and "corrected" in after
    corrected = lambda row: re.findall(r"[\d.]+%", row)[6:9]  # noqa: E731 -- the corrected figure and its bounds
    assert corrected(after) != corrected(before)
    results.locator("#aime-calibration-plot .js-plotly-plot").wait_for(timeout=WAIT)
    results.screenshot(path=str(tmp_path / "aime-calibration.png"), full_page=True)
    ana.screenshot(path=str(tmp_path / "verify-review-next.png"), full_page=True)
    context_a.close()
    context_b.close()
