"""Who reviews what: the overlap and blind settings of a generated file, each reviewer's queue,
what a reviewer may see of the others' reviews, and who may adjudicate.

The settings live in ``<stem>_review_settings.json`` beside the data file, so every reviewer of
the file works to the same ones. Assignment is by demand, not by a fixed roster: a problem is in
a reviewer's queue while that reviewer has not reviewed it, it has fewer than ``overlap`` reviews,
and no adjudicator has settled it. Reviewers who join late still find work, and nobody waits on an
absent colleague.
"""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock

from evalui import settings
from evalui.errors import InputError
from evalui.jsonl import write_json_atomically
from evalui.review.reviews import (
    LOCK_TIMEOUT_S,
    ProblemReviews,
    adjudicate,
    clean_name,
    make_review,
    reviewer_key,
    save_review,
)
from evalui.review.uploads import FileProblem, read_data_file, read_json

SETTINGS_SUFFIX = "_review_settings.json"
DEFAULT_SETTINGS = {"overlap": 1, "blind": False}
MAX_OVERLAP = 20
ADJUDICATORS_ENV = "EVALUI_ADJUDICATORS"


def settings_path(data_file: str | Path) -> Path:
    return Path(data_file).with_name(f"{Path(data_file).stem}{SETTINGS_SUFFIX}")


def check_settings(overlap, blind) -> dict:
    if isinstance(overlap, float) and overlap.is_integer():
        overlap = int(overlap)
    if not isinstance(overlap, int) or isinstance(overlap, bool) or not 1 <= overlap <= MAX_OVERLAP:
        raise InputError(f"overlap must be a whole number from 1 to {MAX_OVERLAP}, got {overlap!r}")
    if not isinstance(blind, bool):
        raise InputError(f"blind must be true or false, got {blind!r}")
    return {"overlap": overlap, "blind": blind}


def read_settings(data_file: str | Path) -> dict:
    """The file's settings; the defaults when there are none or they cannot be used (reviewing never stops for them)."""
    try:
        stored = read_json(settings_path(data_file))
        return check_settings(stored.get("overlap"), stored.get("blind"))
    except (FileProblem, InputError, AttributeError):
        return dict(DEFAULT_SETTINGS)


def save_settings(data_file: str | Path, overlap, blind) -> dict:
    settings = check_settings(overlap, blind)
    path = settings_path(data_file)
    with FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT_S):
        write_json_atomically(path, settings)
    return settings


def needs_review(problem_ids: list[str], parsed: dict[str, ProblemReviews], reviewer: str, overlap: int) -> list[str]:
    """The problems, in file order, that still need this reviewer's review."""
    queue = []
    for problem_id in problem_ids:
        reviews = parsed.get(problem_id)
        if reviews is None:
            queue.append(problem_id)
        elif not reviews.adjudicated and reviews.by(reviewer) is None and len(reviews.reviews) < overlap:
            queue.append(problem_id)
    return queue


def adjudicators() -> set[str] | None:
    """The names in EVALUI_ADJUDICATORS, or None when it is unset (then anyone who may review may adjudicate)."""
    names = {reviewer_key(n) for n in settings.read_list("adjudicators")}
    return names or None


def may_adjudicate(name: str) -> bool:
    listed = adjudicators()
    return bool(reviewer_key(name)) and (listed is None or reviewer_key(name) in listed)


def may_see_others(reviews: ProblemReviews | None, viewer: str, blind: bool) -> bool:
    """Blind mode hides the others' reviews (and the judge's scores) until the viewer has saved their own.

    Listed adjudicators see everything: settling a dispute needs every review.
    """
    if not blind:
        return True
    if reviews is not None and reviews.by(viewer) is not None:
        return True
    listed = adjudicators()
    return listed is not None and reviewer_key(viewer) in listed


def record_review(data_file: str | Path, problem_id: str, scores: dict, status: str, comments: str, reviewer: str,
                  *, final: bool = False, better_than_reference: str | None = None) -> dict:
    """Check and save one review, or with ``final`` an adjudicator's final review: what the panel and the CLI call.
    ``better_than_reference`` (yes, no or tie) is the reviewer's optional answer to "is this problem better than
    the reference problem the win-rate judge compared it with?"; ask it without showing the judge's choice.

    Returns the saved review. Nothing is written unless every value is sound.
    """
    if problem_id not in {p["problem_id"] for p in read_data_file(data_file)}:
        raise InputError(f"no problem {problem_id!r} in this file", path=str(data_file))
    name = clean_name(reviewer, what="adjudicator" if final else "reviewer")
    if final and not may_adjudicate(name):
        raise InputError(f"{name} is not an adjudicator (see {ADJUDICATORS_ENV})")
    review = make_review(problem_id, scores, status, comments, name, better_than_reference)
    (adjudicate if final else save_review)(data_file, review)
    return review
