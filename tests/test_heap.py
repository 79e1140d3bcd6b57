"""Only the `evalui` command itself freezes what it loaded before a run; a process that calls the
CLI's main with arguments (a test, a notebook) or runs the dashboard never does."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest

from evalui.engine import heap

pytestmark = pytest.mark.unit


def test_a_long_lived_process_never_freezes_its_heap():
    before = gc.get_freeze_count()
    heap.settle_before_run()
    assert gc.get_freeze_count() == before


def test_a_one_run_process_freezes_what_it_holds_before_the_run():
    script = ("import gc; from evalui.engine import heap; data = [[i] for i in range(1000)]; "
              "heap.settle_before_run(); print(gc.get_freeze_count()); "
              "heap.one_run_process(); heap.settle_before_run(); print(gc.get_freeze_count())")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    unfrozen, frozen = (int(line) for line in done.stdout.split())
    assert unfrozen == 0 and frozen >= 1000


def test_calling_the_cli_main_with_arguments_is_no_one_run_process(tmp_path):
    script = ("import gc; from evalui.cli import main; from evalui.engine import heap; "
              "main(['compare', 'no-run-a', 'no-run-b']); heap.settle_before_run(); print(gc.get_freeze_count())")
    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.stdout.strip().splitlines()[-1] == "0", done.stderr[-2000:]
