"""The approved problems of a generated file, with every reviewer's review, pushed to the Hugging
Face Hub as a dataset (``datasets.Dataset.push_to_hub``) to a repository the user names.

The columns are fixed (``FEATURES``), so a file whose answers are sometimes numbers and sometimes
text still makes one schema; the problem's text fields are stored as text. The token comes from
the caller (or HF_TOKEN) and is never logged, stored, or repeated in a message.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from evalui.errors import InputError
from evalui.review.report import file_reviews
from evalui.stats.metrics import JUDGE_DIMENSIONS

PROBLEM_COLUMNS = ("problem", "answer", "solution", "topic")
# Hub rules for a repo id: optional namespace, then a name of letters, digits, ``-_.``, at most 96 characters.
REPO_ID = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/)?[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")


def features():
    from datasets import Features, List, Value

    scores = {d: Value("int64") for d in JUDGE_DIMENSIONS}
    review = {"reviewer": Value("string"), "scores": scores, "total_score": Value("float64"),
              "status": Value("string"), "comments": Value("string"), "verified_at": Value("string")}
    return Features({"problem_id": Value("string"), **{c: Value("string") for c in PROBLEM_COLUMNS},
                     "final_review": {**review, "adjudicated": Value("bool")}, "reviews": List(review)})


def _text(value) -> str:
    return "" if value is None else value if isinstance(value, str) else str(value)


def _review_row(review: dict) -> dict:
    return {"reviewer": review["reviewer"], "scores": dict(review["scores"]),
            "total_score": sum(review["scores"].values()) / len(JUDGE_DIMENSIONS),  # never a hand-edited value
            "status": review["status"], "comments": _text(review.get("comments")),
            "verified_at": _text(review.get("verified_at"))}


def approved_rows(data_file: str | Path) -> list[dict]:
    """One row per problem whose final review is approved, in file order; a disputed problem is left
    out until someone adjudicates it."""
    problems, parsed, _ = file_reviews(data_file)
    rows = []
    for problem in problems:
        reviews = parsed.get(problem["problem_id"])
        if reviews is None or reviews.final is None or reviews.final["status"] != "approved" or reviews.disputed:
            continue
        rows.append({"problem_id": problem["problem_id"], **{c: _text(problem.get(c)) for c in PROBLEM_COLUMNS},
                     "final_review": {**_review_row(reviews.final), "adjudicated": reviews.adjudicated},
                     "reviews": [_review_row(r) for r in reviews.reviews]})
    return rows


def check_repo_id(repo_id: str) -> str:
    repo_id = (repo_id or "").strip()
    if not REPO_ID.fullmatch(repo_id) or ".." in repo_id or repo_id.endswith((".git", ".")):
        raise InputError(f"not a Hub dataset name: {repo_id[:100]!r} (expected owner/name)")
    return repo_id


def push_approved(data_file: str | Path, repo_id: str, *, token: str | None = None, private: bool = True) -> dict:
    """Push the approved problems to ``repo_id``; {"repo_id", "rows", "url"}. Nothing approved: an InputError."""
    repo_id = check_repo_id(repo_id)
    rows = approved_rows(data_file)
    if not rows:
        raise InputError("no approved problems to export", path=str(data_file))
    token = token or os.environ.get("HF_TOKEN") or None
    from datasets import Dataset

    dataset = Dataset.from_list(rows, features=features())
    try:
        commit = dataset.push_to_hub(repo_id, token=token, private=private,
                                     commit_message=f"evalui: {len(rows)} approved problems with their reviews")
    except Exception as exc:  # the Hub's refusals (no token, no rights, unreachable) become one line
        text = " ".join(str(exc).split())[:300] or type(exc).__name__
        if token:
            text = text.replace(token, "***")
        raise RuntimeError(f"could not push to {repo_id}: {text}") from None
    return {"repo_id": repo_id, "rows": len(rows), "url": getattr(commit, "commit_url", None) or ""}
