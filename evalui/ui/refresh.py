"""How often an open page re-reads, by itself, what other processes change. Each open page asks
at these intervals, so an operator of a dashboard many people keep open may ask less often."""

from __future__ import annotations

from evalui.config import positive_number

RUNS_REFRESH_ENV = "EVALUI_RUNS_REFRESH_S"
FILES_REFRESH_ENV = "EVALUI_FILES_REFRESH_S"
REVIEWS_REFRESH_ENV = "EVALUI_REVIEWS_REFRESH_S"


def runs_refresh_s() -> float:
    """How soon a run stored by another process shows in a tab's stored-runs list."""
    return positive_number(RUNS_REFRESH_ENV, 10.0)


def files_refresh_s() -> float:
    """How soon a newly generated AIME file shows in the results and verification lists."""
    return positive_number(FILES_REFRESH_ENV, 15.0)


def reviews_refresh_s() -> float:
    """How soon another reviewer's save shows on the problem one has open."""
    return positive_number(REVIEWS_REFRESH_ENV, 4.0)
