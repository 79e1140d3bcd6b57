"""Outside code that evalui loads by name: benchmarks from installed distributions (the entry-point
group ``evalui.benchmarks``), from EVALUI_BENCHMARKS, a GAIA agent module and a web backend. Each
is a ``module:attr`` resolved by pkgutil.resolve_name, and each failure says what could not load.

The installed distribution is a dist-info folder made by the test, on the PYTHONPATH of a fresh
interpreter: what `pip install` of a package declaring the entry point leaves behind."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from toy_benchmark import ToyOptions, ask, samples

from evalui.core import registry
from support.openai_peer import ScriptedPeer, completion

TESTS = Path(__file__).resolve().parents[2]


def installed(site: Path, entries: dict[str, str]) -> Path:
    """A distribution that declares ``entries`` in the group evalui.benchmarks, as pip leaves it."""
    info = site / "evalui_toy_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evalui-toy-plugin\nVersion: 0.1\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINT_GROUP}]\n{lines}")
    return site


def environment(site: Path, tmp_path: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != registry.EXTRA_ENV}
    return {**env, "EVALUI_DATA_DIR": str(tmp_path / "data"), **extra,
            "PYTHONPATH": os.pathsep.join([str(site), str(TESTS), os.environ.get("PYTHONPATH", "")])}


def test_an_installed_distribution_adds_a_benchmark_that_runs_through_the_cli(tmp_path):
    site = installed(tmp_path / "site", {"toy": "toy_benchmark:BENCHMARK"})
    with ScriptedPeer(lambda body, n: completion(ask(body["messages"][-1]["content"]))) as peer:
        done = subprocess.run([sys.executable, "-m", "evalui", "toy", "run", "--n", "12", "--seed", "3",
                               "--base-url", peer.base_url, "--model", "m", "--exp-id", "toy-plugin"],
                              env=environment(site, tmp_path), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    correct = sum(1 for _, _, p in samples(ToyOptions(n=12, seed=3)) if (p["a"] + p["b"]) % 10 != 7)
    assert summary["exp_id"] == "toy-plugin" and summary["total"] == 12 and summary["correct"] == correct


def test_entry_points_cannot_replace_a_built_in_and_a_broken_one_says_what_failed(tmp_path):
    site = installed(tmp_path / "site", {"toy": "toy_benchmark:BENCHMARK", "bfcl": "toy_benchmark:BENCHMARK",
                                         "broken": "evalui_no_such_module:SPEC"})
    script = """
import json
from evalui.core import registry
try:
    registry.get("broken")
except ImportError as exc:
    broken = str(exc)
print(json.dumps({"extra": registry.extra_names(), "toy": registry.get("toy").title,
                  "bfcl": registry.get("bfcl").title, "broken": broken}))
"""
    done = subprocess.run([sys.executable, "-c", script], env=environment(site, tmp_path),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["extra"] == ["toy", "broken"] and found["toy"] == "Toy sums"
    assert found["bfcl"] == registry.get("bfcl").title != "Toy sums"
    assert "ignored the entry point bfcl = toy_benchmark:BENCHMARK" in done.stderr
    assert found["broken"] == ("benchmark 'broken': cannot load 'evalui_no_such_module:SPEC' "
                               "(ModuleNotFoundError: No module named 'evalui_no_such_module')")

    # EVALUI_BENCHMARKS is the operator's word: it overrides an installed benchmark of the same name.
    overridden = subprocess.run(
        [sys.executable, "-c", "from evalui.core import registry; registry.get('toy')"],
        env=environment(site, tmp_path, **{registry.EXTRA_ENV: "toy=toy_benchmark:NOPE"}),
        capture_output=True, text=True, timeout=300)
    assert overridden.returncode == 1
    assert ("evalui.core.plugins.PluginError: benchmark 'toy': cannot load 'toy_benchmark:NOPE' "
            "(AttributeError: module 'toy_benchmark' has no attribute 'NOPE')") in overridden.stderr
