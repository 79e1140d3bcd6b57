"""Steps the verification panel's browser tests share: scoring a review and reading which scores are set."""

from __future__ import annotations

DIMENSIONS = ("correctness", "clarity", "difficulty_match", "completeness")


def score(page, scores: dict, prefix: str = "verify") -> None:
    """Click each dimension's score (its radio labelled 1–5) in the review form, or with
    ``prefix="verify-adjudicate"`` the adjudication form."""
    for dimension, value in scores.items():
        page.locator(f"#{prefix}-{dimension}").get_by_label(str(value), exact=True).check()


def checked_scores(page, prefix: str = "verify") -> dict:
    """{dimension: the checked score, or None when the dimension is unset} as the page shows it."""
    shown = {}
    for dimension in DIMENSIONS:
        assert page.locator(f"#{prefix}-{dimension} input[type=radio]").count() == 5, dimension  # a 1–5 choice
        checked = page.locator(f"#{prefix}-{dimension} input[type=radio]:checked")
        shown[dimension] = int(checked.first.get_attribute("value") or 0) or None if checked.count() else None
    return shown
