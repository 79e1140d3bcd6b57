"""An operator sets how often open pages re-read the stored-runs lists, the generated-file lists and
the reviews of the problem one has open; unset or unreadable, the defaults hold."""

from collections import Counter

import pytest

from evalui.ui.refresh import (
    FILES_REFRESH_ENV,
    REVIEWS_REFRESH_ENV,
    RUNS_REFRESH_ENV,
    files_refresh_s,
    reviews_refresh_s,
    runs_refresh_s,
)

SETTINGS = [(RUNS_REFRESH_ENV, runs_refresh_s, 10.0), (FILES_REFRESH_ENV, files_refresh_s, 15.0),
            (REVIEWS_REFRESH_ENV, reviews_refresh_s, 4.0)]


@pytest.mark.parametrize("name, setting, default", SETTINGS)
def test_unset_zero_or_unreadable_keeps_the_default(monkeypatch, name, setting, default):
    monkeypatch.delenv(name, raising=False)
    assert setting() == default
    for bad in ("0", "-3", "soon", ""):
        monkeypatch.setenv(name, bad)
        assert setting() == default
    monkeypatch.setenv(name, "2.5")
    assert setting() == 2.5


def _timer_intervals(monkeypatch, tmp_path) -> Counter:
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    import app

    demo = app.build_demo()
    return Counter(c["props"]["value"] for c in demo.get_config_file()["components"]
                   if c["type"] == "timer" and c["props"]["active"])


def test_the_dashboard_timers_follow_the_settings(monkeypatch, tmp_path):
    for name, _, _ in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    defaults = _timer_intervals(monkeypatch, tmp_path)
    # One stored-runs list per launcher tab, the AIME results and verification file lists, the open problem.
    assert defaults[10.0] >= 4 and defaults[15.0] == 2 and defaults[4.0] == 1
    monkeypatch.setenv(RUNS_REFRESH_ENV, "7")
    monkeypatch.setenv(FILES_REFRESH_ENV, "8")
    monkeypatch.setenv(REVIEWS_REFRESH_ENV, "9")
    chosen = _timer_intervals(monkeypatch, tmp_path)
    assert chosen == Counter({7.0: defaults[10.0], 8.0: 2, 9.0: 1})
