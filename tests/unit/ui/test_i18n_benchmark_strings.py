"""Benchmarks bring their tabs' texts in their own packages (evalui/benchmarks/<name>/strings.py); the
one catalog finds and merges them without naming a benchmark."""

from __future__ import annotations

import pytest

from evalui.ui.i18n.benchmarks import benchmark_strings

pytestmark = pytest.mark.unit


def test_every_benchmark_package_s_catalog_is_found_with_both_languages():
    found = benchmark_strings()
    for key in ("tab.bfcl", "bfcl.start", "score.bfcl_figures", "tab.gaia", "gaia.start", "score.gaia_level",
                "tab.aime", "tab.aime_results", "aime.judge_start"):
        assert key in found
    assert all(isinstance(en, str) and en and isinstance(zh, str) and zh for en, zh in found.values())


def test_two_catalogs_giving_one_key_other_texts_are_refused(tmp_path, monkeypatch):
    for name, text in (("one", "A"), ("two", "B")):
        package = tmp_path / "fake_benchmarks" / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "strings.py").write_text(f"STRINGS = {{'tab.x': ({text!r}, {text!r})}}\n")
    (tmp_path / "fake_benchmarks" / "__init__.py").write_text("")
    (tmp_path / "fake_benchmarks" / "plain").mkdir()
    (tmp_path / "fake_benchmarks" / "plain" / "__init__.py").write_text("")  # no catalog: skipped
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="tab.x"):
        benchmark_strings("fake_benchmarks")
