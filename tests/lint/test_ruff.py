"""ruff holds the whole tree to the rule set in pyproject.toml ([tool.ruff.lint]), and the rule set
catches what it is there for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUFF = Path(sys.executable).parent / "ruff"
TREE = ["evalui", "tests", "bench", "app.py"]


def _ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([str(RUFF), "check", "--no-cache", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_the_tree_passes_ruff():
    done = _ruff(*TREE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_rule_set_catches_an_unsorted_import_an_unused_name_and_a_mutable_default(tmp_path):
    planted = tmp_path / "evalui" / "planted.py"
    planted.parent.mkdir()
    planted.write_text("import sys\nimport os\n\n\ndef f(items=[]):\n    return items\n")
    done = _ruff("--config", str(ROOT / "pyproject.toml"), "--output-format", "concise", "evalui", cwd=tmp_path)
    assert done.returncode == 1
    codes = {line.split(": ")[1].split()[0] for line in done.stdout.splitlines() if ": " in line and ".py:" in line}
    assert {"I001", "F401", "B006"} <= codes, done.stdout
