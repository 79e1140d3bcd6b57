"""Who a review is by: reviewer names, and the labels of reviews saved without one.

Reviews are kept one per reviewer, so a name is required: reviews pooled under a shared placeholder
would replace each other. Older versions saved unnamed reviews (as "anonymous", or with no reviewer
at all); they still count, each under its own label ("anonymous", "anonymous-2", …), and those
labels are reserved so that no new review can land on one of them.
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from evalui.errors import InputError

MAX_NAME = 100
UNNAMED = "anonymous"
_UNNAMED_LABEL = re.compile(rf"{UNNAMED}(-\d+)?")


def reviewer_key(name) -> str:
    """Reviewers are the same person whatever the case or surrounding spaces of their name."""
    return str(name or "").strip().casefold()


def is_unnamed_label(name) -> bool:
    """True for "anonymous" and "anonymous-<n>", whatever the case: the labels of reviews saved without a name."""
    return _UNNAMED_LABEL.fullmatch(reviewer_key(name)) is not None


def clean_name(name, *, what: str = "reviewer") -> str:
    name = str(name or "").strip()
    if not name:
        raise InputError(f"{what} needs a name")
    if is_unnamed_label(name):
        raise InputError(f"{what} name {name!r} is reserved for reviews saved without a name; give your own name")
    if len(name) > MAX_NAME:
        raise InputError(f"{what} name is longer than {MAX_NAME} characters")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name):
        raise InputError(f"{what} name contains control characters")
    return name


def saved_unnamed(review: dict) -> bool:
    """A stored review that an older version saved without a name."""
    return reviewer_key(review.get("reviewer")) in ("", UNNAMED)


def unnamed_labels(taken: set[str]):
    """"anonymous", "anonymous-2", "anonymous-3", … skipping the names in ``taken``."""
    for n in itertools.count(1):
        label = UNNAMED if n == 1 else f"{UNNAMED}-{n}"
        if label not in taken:
            yield label
