"""One word for how a stored sample ended, shared by the inspector, the comparison and the CI gate."""

from __future__ import annotations

VERDICTS = ("correct", "wrong", "error", "unscored", "pending")


def verdict_of(sample) -> str:
    """correct / wrong / error (the endpoint failed) / unscored (no known answer) / pending (not run)."""
    if sample.stage == "judged":
        if (sample.verdict or {}).get("scored") is False:
            return "unscored"
        return "correct" if sample.correct else "wrong"
    return "error" if sample.error else "pending"
