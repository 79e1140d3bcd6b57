"""Steps the verification panel's browser tests share: scoring a review and reading which scores are set."""

from __future__ import annotations

import re

from playwright.sync_api import expect

DIMENSIONS = ("correctness", "clarity", "difficulty_match", "completeness")


# Gradio's status on an event's progress target while the event runs: a timer ("0.2s"), or
# "processing | 0.2s" / "queue: 1/2 |". The panel's events show theirs on #verify-message.
PENDING_STATUS = re.compile(r"^\s*(processing \||queue: \d+/\d* \|)?\s*[\d.]+(/[\d.]+)?s\s*$")


def score(page, scores: dict, prefix: str = "verify") -> None:
    """Click each dimension's score (its radio labelled 1–5) in the review form, or with
    ``prefix="verify-adjudicate"`` the adjudication form. Clicked once the panel's last event has
    drawn its outputs (a move's cleared scores arriving after the clicks would undo them), and
    checked to be set."""
    expect(page.locator("#verify-message")).not_to_have_text(PENDING_STATUS, timeout=30_000)
    for dimension, value in scores.items():
        choice = page.locator(f"#{prefix}-{dimension}").get_by_label(str(value), exact=True)
        choice.check()
        expect(choice).to_be_checked()


def checked_scores(page, prefix: str = "verify") -> dict:
    """{dimension: the checked score, or None when the dimension is unset} as the page shows it."""
    shown = {}
    for dimension in DIMENSIONS:
        assert page.locator(f"#{prefix}-{dimension} input[type=radio]").count() == 5, dimension  # a 1–5 choice
        checked = page.locator(f"#{prefix}-{dimension} input[type=radio]:checked")
        shown[dimension] = int(checked.first.get_attribute("value") or 0) or None if checked.count() else None
    return shown
