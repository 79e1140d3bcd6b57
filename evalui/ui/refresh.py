"""How often an open page re-reads, by itself, what other processes change. Each open page asks
at these intervals, so an operator of a dashboard many people keep open may ask less often."""

from __future__ import annotations

from evalui.settings import read

RUNS_REFRESH_ENV = "EVALUI_RUNS_REFRESH_S"
FILES_REFRESH_ENV = "EVALUI_FILES_REFRESH_S"
REVIEWS_REFRESH_ENV = "EVALUI_REVIEWS_REFRESH_S"


def runs_refresh_s() -> float:
    """How soon a run stored by another process shows in a tab's stored-runs list."""
    return read("runs_refresh_s")


def files_refresh_s() -> float:
    """How soon a newly generated AIME file shows in the results and verification lists."""
    return read("files_refresh_s")


def reviews_refresh_s() -> float:
    """How soon another reviewer's save shows on the problem one has open."""
    return read("reviews_refresh_s")
