"""bench/RESULTS.md opens with a "Latest figures" table naming every benchmark script in bench/, and
bench/history/ holds one JSON file per benchmark per recorded date (issue 40).

A benchmark script is a bench/*.py that runs as a program (``if __name__ == "__main__"``); the
helpers it imports (common.py, fast_peer.py, scanner_real_runs.py) are not. A script with no figure
recorded yet is still listed, saying so.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
RESULTS = BENCH / "RESULTS.md"
HISTORY = BENCH / "history"
HISTORY_KEYS = {"benchmark", "date", "command", "machine", "figures"}
MAIN = re.compile(r"""^if __name__ == ["']__main__["']\s*:""", re.MULTILINE)


def benchmark_scripts(folder: Path = BENCH) -> set[str]:
    return {path.name for path in folder.glob("*.py") if MAIN.search(path.read_text(encoding="utf-8"))}


def latest_table(text: str) -> dict[str, list[str]]:
    """The "Latest figures" section's table: {script file name: the row's other cells}."""
    section = re.search(r"^## Latest figures\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert section, 'bench/RESULTS.md has no "## Latest figures" section'
    rows = {}
    for line in section.group(1).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else []
        named = re.fullmatch(r"`bench/(\w+\.py)`", cells[0]) if cells else None
        if named:
            rows[named.group(1)] = cells[1:]
    return rows


def missing_from_table(folder: Path, text: str) -> list[str]:
    return sorted(benchmark_scripts(folder) - set(latest_table(text)))


def history_problems(path: Path, scripts: set[str]) -> list[str]:
    """What is wrong with one history file (nothing: an empty list)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        return [f"{path.name}: not valid JSON ({exc})"]
    if not isinstance(record, dict):
        return [f"{path.name}: not a JSON object"]
    problems = [f"{path.name}: no {key!r}" for key in sorted(HISTORY_KEYS - set(record))]
    if problems:
        return problems
    if f"{record['benchmark']}.py" not in scripts:
        problems.append(f"{path.name}: no benchmark script bench/{record['benchmark']}.py")
    try:
        datetime.date.fromisoformat(str(record["date"]))
    except ValueError:
        problems.append(f"{path.name}: date {record['date']!r} is not YYYY-MM-DD")
    if path.name != f"{record['benchmark']}-{record['date']}.json":
        problems.append(f"{path.name}: should be named {record['benchmark']}-{record['date']}.json")
    for key in ("command", "machine"):
        if not (isinstance(record[key], str) and record[key].strip()):
            problems.append(f"{path.name}: {key!r} is empty")
    if not (isinstance(record["figures"], dict) and record["figures"]):
        problems.append(f"{path.name}: 'figures' is not a non-empty object")
    return problems


def test_every_benchmark_script_is_in_the_latest_figures_table():
    scripts = benchmark_scripts()
    assert len(scripts) >= 15  # the glob and the __main__ test found the scripts
    assert missing_from_table(BENCH, RESULTS.read_text(encoding="utf-8")) == []


def test_every_row_names_a_script_and_fills_every_column():
    rows = latest_table(RESULTS.read_text(encoding="utf-8"))
    assert set(rows) <= {path.name for path in BENCH.glob("*.py")}, "a row names a script that is not in bench/"
    for script, cells in rows.items():
        assert len(cells) == 4 and all(cells), f"{script}: latest figure, command, machine and date, each filled"


def test_every_history_file_is_json_with_the_keys():
    files = sorted(HISTORY.glob("*.json"))
    assert files, "bench/history/ holds no figures"
    scripts = {path.name for path in BENCH.glob("*.py")}
    assert [problem for path in files for problem in history_problems(path, scripts)] == []


def test_every_dated_history_file_has_its_date_in_the_table():
    """The table's date for a benchmark is its newest history file's."""
    rows = latest_table(RESULTS.read_text(encoding="utf-8"))
    newest: dict[str, str] = {}
    for path in HISTORY.glob("*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        newest[record["benchmark"]] = max(newest.get(record["benchmark"], ""), record["date"])
    for benchmark, date in newest.items():
        assert rows[f"{benchmark}.py"][3].startswith(date), f"{benchmark}: the table's date is not {date}"


@pytest.fixture()
def planted(tmp_path):
    (tmp_path / "listed.py").write_text('print(1)\n\nif __name__ == "__main__":\n    print(2)\n')
    (tmp_path / "unlisted.py").write_text("if __name__ == '__main__':\n    print(3)\n")
    (tmp_path / "helper.py").write_text("def helper():\n    return 1\n")
    return tmp_path


def test_a_script_left_out_of_the_table_is_caught(planted):
    text = ("# Benchmark results\n\n## Latest figures\n\n| script | latest figure | command | machine | date |\n"
            "|---|---|---|---|---|\n| `bench/listed.py` | 1 s | `python listed.py` | 2 cores | 2026-11-27 |\n\n"
            "## Another section\n\n| `bench/unlisted.py` | outside the table's section |\n")
    assert missing_from_table(planted, text) == ["unlisted.py"]


def test_a_bad_history_file_is_caught(tmp_path):
    scripts = {"engine_ceiling.py"}
    good = {"benchmark": "engine_ceiling", "date": "2026-11-27", "command": "python engine_ceiling.py",
            "machine": "2 cores", "figures": {"ratio": 1.08}}
    cases = {
        "engine_ceiling-2026-11-27.json": (json.dumps(good), []),
        "broken-2026-11-27.json": ('{"benchmark": "engine_ceiling",', ["not valid JSON"]),
        "keys-2026-11-27.json": (json.dumps({k: v for k, v in good.items() if k != "machine"}), ["no 'machine'"]),
        "engine_ceiling-2026-1-27.json": (json.dumps({**good, "date": "2026-1-27"}), ["not YYYY-MM-DD"]),
        "unknown-2026-11-27.json": (json.dumps({**good, "benchmark": "unknown"}), ["no benchmark script"]),
    }
    for name, (text, expected) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        problems = history_problems(path, scripts)
        assert all(any(word in problem for problem in problems) for word in expected) and bool(problems) == bool(expected), \
            (name, problems)
