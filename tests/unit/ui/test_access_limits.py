"""Limits that hold before any handler's own checks, through the real app over HTTP: request bodies
are capped before they are parsed or queued, and one visitor may have only so many runs going."""
from __future__ import annotations

from evalui.ui.web import visitor_runs


def test_the_cap_is_two_on_shared_deployments_and_none_on_ones_own(monkeypatch):
    for name in ("EVALUI_ALLOWED_USERS", "SPACE_ID", "EVALUI_SHARED", visitor_runs.MAX_RUNS_ENV):
        monkeypatch.delenv(name, raising=False)
    assert visitor_runs.max_runs() is None
    monkeypatch.setenv("EVALUI_ALLOWED_USERS", "alice")
    assert visitor_runs.max_runs() == 2
    monkeypatch.setenv(visitor_runs.MAX_RUNS_ENV, "5")
    assert visitor_runs.max_runs() == 5
    monkeypatch.setenv(visitor_runs.MAX_RUNS_ENV, "0")
    assert visitor_runs.max_runs() is None
