"""mypy holds the evalui package to its baseline (tests/lint/types.py, mypy_baseline.json): no file
gains an error, the strict packages (evalui.core, evalui.run, evalui.scanners, evalui.stats,
evalui.store) have none, a fix lowers the baseline with it, and the gate sees an error planted in
a copy of the package.

mypy runs twice: over the tree, then over a copy with a planted error. Both share the work through
mypy's cache (the tree's .mypy_cache, copied for the copy), so only a cold cache takes long.
"""

from __future__ import annotations

import shutil

import pytest

from lint.types import (
    BASELINE,
    CACHE,
    PACKAGE,
    ROOT,
    STRICT,
    counts,
    is_strict,
    over_baseline,
    read_baseline,
    run_mypy,
    under_baseline,
)


@pytest.fixture(scope="module")
def found() -> dict[str, int]:
    return counts(run_mypy())


def test_no_file_has_more_mypy_errors_than_its_baseline(found):
    baseline = read_baseline()
    assert not [path for path in baseline if is_strict(path)], f"{STRICT} take no baseline entry"
    strict = {path: n for path, n in found.items() if is_strict(path)}
    assert not strict, f"mypy errors in a strict package ({STRICT}): {strict}; run .venv/bin/python tests/lint/types.py"
    over = over_baseline(found, baseline)
    assert not over, f"more mypy errors than the baseline (file: (allowed, now)): {over}; " \
                     "run .venv/bin/python tests/lint/types.py to see them"


def test_the_baseline_only_shrinks(found):
    under = under_baseline(found, read_baseline())
    assert not under, f"fewer mypy errors than the baseline: lower it in {BASELINE.name} " \
                      f"(file: (baseline, now)): {under}"


def test_the_strict_packages_are_those_issue_37_names():
    assert set(STRICT) >= {"evalui/core/", "evalui/run/", "evalui/scanners/", "evalui/stats/", "evalui/store/"}


def test_the_gate_reports_an_error_planted_in_a_strict_package(found, tmp_path):
    # `found` first: the tree's cache is warm before it is copied.
    shutil.copytree(ROOT / PACKAGE, tmp_path / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(CACHE, tmp_path / "cache")
    planted_in = ("evalui/stats/cost.py", "evalui/store/rows.py")  # one mypy run for both
    lines = {}
    for name in planted_in:
        planted = tmp_path / name
        lines[name] = len(planted.read_text(encoding="utf-8").splitlines())
        with planted.open("a", encoding="utf-8") as module:
            module.write('\n\ndef planted() -> int:\n    return "x"\n')
    errors = run_mypy(tmp_path, tmp_path / "cache")
    for name in planted_in:
        assert errors.get(name) == [
            f'{lines[name] + 4}: error: Incompatible return value type (got "str", expected "int")  [return-value]']
        assert over_baseline(counts(errors), read_baseline()).get(name) == (0, 1)
