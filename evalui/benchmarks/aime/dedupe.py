"""Near-duplicate detection between problems, on normalised text."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

SIMILARITY_THRESHOLD = 0.85


def normalise(text: str) -> str:
    text = re.sub(r"\\[a-zA-Z]+|[${}\\]", " ", text.lower())
    return " ".join(re.findall(r"[a-z0-9]+", text))


def similarity(a: str, b: str) -> float:
    left, right = normalise(a), normalise(b)
    if not left or not right:
        return 0.0
    return SequenceMatcher(None, left, right, autojunk=False).ratio()


def find_duplicate(problem: str, others: list[tuple[str, str]], threshold: float = SIMILARITY_THRESHOLD):
    """(id, similarity) of the first of ``others`` (id, text) at least ``threshold`` alike, else None."""
    target = normalise(problem)
    for identifier, text in others:
        candidate = normalise(text)
        matcher = SequenceMatcher(None, target, candidate, autojunk=False)
        # quick_ratio is an upper bound: skip the full comparison when it cannot reach the threshold
        if matcher.real_quick_ratio() >= threshold and matcher.quick_ratio() >= threshold:
            score = matcher.ratio()
            if score >= threshold:
                return identifier, score
    return None
