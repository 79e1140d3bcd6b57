"""`evalui plan` through the real command line: the figures as the last JSON line, the sentence
above it, the simulation on request, bad input as exit 2, and no gradio loaded."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest


def evalui(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalui", "plan", *args], capture_output=True, text=True, timeout=300)


def test_plan_prints_samples_and_epochs_for_80_percent_power():
    unpaired = evalui("--baseline", "0.70", "--effect", "0.05")
    assert unpaired.returncode == 0, unpaired.stderr
    record = json.loads(unpaired.stdout.strip().splitlines()[-1])
    assert record["samples"] == 1251 and record["power"] == 0.8 and record["alpha"] == 0.05
    assert "1251 samples per run" in unpaired.stdout

    epochs = evalui("--baseline", "0.70", "--effect", "0.05", "--epochs", "5", "--icc", "0.5", "--simulate", "500")
    assert epochs.returncode == 0, epochs.stderr
    record = json.loads(epochs.stdout.strip().splitlines()[-1])
    assert record["samples"] == 751 and record["answers"] == 3755 and record["design_effect"] == pytest.approx(3)
    assert record["simulated_samples"] == pytest.approx(751, rel=0.10)
    assert "Simulation:" in epochs.stdout and "No number of epochs gets below 626 samples" in epochs.stdout

    paired = evalui("--baseline", "0.70", "--effect", "0.05", "--paired", "--correlation", "0.5")
    record = json.loads(paired.stdout.strip().splitlines()[-1])
    assert paired.returncode == 0 and record["paired"] and record["samples"] == 631
    assert "correlation of 0.5" in paired.stdout


@pytest.mark.parametrize("args", [("--baseline", "1.2", "--effect", "0.05"), ("--baseline", "0.9", "--effect", "0.2"),
                                  ("--baseline", "0.7", "--effect", "0.05", "--paired", "--correlation", "0.99"),
                                  ("--baseline", "0.7", "--effect", "0.05", "--epochs", "0")])
def test_impossible_designs_exit_2_with_one_line(args):
    done = evalui(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalui: error:") and "Traceback" not in done.stderr


def test_plan_never_loads_gradio():
    code = ("import sys; from evalui.cli import main; "
            "status = main(['plan', '--baseline', '0.7', '--effect', '0.05', '--paired']); "
            "assert status == 0 and 'gradio' not in sys.modules, sorted(m for m in sys.modules if 'gradio' in m)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
