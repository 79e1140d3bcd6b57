"""`python -m evalui.benchmarks.bfcl.warm` (run by `make` after installing) keeps both per-installation
facts, so a run's summary afterwards works out nothing: the kept files do not change."""

from __future__ import annotations

import os
import subprocess
import sys


def run(code_or_module: list[str], cache) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    return subprocess.run([sys.executable, *code_or_module], env=env, capture_output=True, text=True, timeout=300)


def test_warm_keeps_the_registry_snapshot_and_every_size_a_summary_reads(tmp_path):
    done = run(["-m", "evalui.benchmarks.bfcl.warm"], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "once per installation" in done.stdout
    kept = {p.name: p.read_text() for p in (tmp_path / "evalui").iterdir()}
    assert {name.split("-")[1] for name in kept} == {"model", "category"}
    summary = ("from evalui.benchmarks.bfcl.scoring.leaderboard import leaderboard\n"
               "print(leaderboard({'simple_python': {'total': 4, 'correct': 3, 'accuracy': 0.75}})['overall'])\n")
    done = run(["-c", summary], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert {p.name: p.read_text() for p in (tmp_path / "evalui").iterdir()} == kept
