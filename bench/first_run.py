"""The first ``evalui bfcl run`` after a fresh install against a warm one (issue 41: the first run
<= 1.2 x a warm run, the install caches built at install time and not inside the first run).

The command is engine_ceiling's whole command (``evalui bfcl run`` as a subprocess: 400
simple_python at C = 32 against bench/fast_peer.py), in three states:

- "no install step": a copy of the ``evalui`` package without any ``__pycache__``, first on
  PYTHONPATH (the checkout's own files and bytecode are left alone), an empty XDG_CACHE_HOME and
  a new EVALUI_DATA_DIR: what a first run meets when nothing was built at install time;
- "fresh install": the same, after the install step `make` runs
  (``python -m evalui.benchmarks.bfcl.warm``, its own seconds printed beside, outside the run);
- "warm": the same command again, in the fresh install's copy and cache folder, with whatever
  the first run left there.

Each state runs in two environments: the shell's, where PYTHONDONTWRITEBYTECODE is set (as on these
machines) and a run writes no bytecode, so only the install step can leave any; and Python's
default, where the first run compiles and writes what it imports and the warm run reads it. The
evalui bytecode files in the copy are counted before each run. The operating system's file cache is
not emptied (no privilege for it), so "fresh" is a fresh installation on a machine that has read
its files before.

For each: the whole-command wall and the summary's ``timings`` (evalui.run.phases: load, first
request, run phase, exports, CPU), then the ratio fresh install / warm. Each figure is the best of
REPEATS, the states interleaved within each repeat, since the machine is shared. Nothing is asserted.

Run: cd bench && ../.venv/bin/python first_run.py
(EVALUI_BENCH_SCENARIOS=10,100 adds the 10 ms endpoint; EVALUI_BENCH_REPEATS=1: once.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fast_peer import FastPeer

REPEATS = int(os.environ.get("EVALUI_BENCH_REPEATS", "3"))
TARGET = 1.2  # issue 41: the first run after a fresh install, at most this times a warm run
SCENARIOS = [  # name, categories, samples per category, concurrency, latency
    ("400 simple_python, C=32, 100 ms", ["simple_python"], 400, 32, 0.100),
    ("400 simple_python, C=32, 10 ms", ["simple_python"], 400, 32, 0.010),
]
STATES = ["no install step", "fresh install", "warm"]
PHASES = [("load", "load_s"), ("first req", "first_request_s"), ("run", "run_s"), ("export", "export_s"),
          ("CPU", "cpu_s"), ("total", "total_s")]
BYTECODE_POLICY = {False: "runs write no bytecode (PYTHONDONTWRITEBYTECODE=1)",
                   True: "runs write bytecode (Python's default)"}
CHECKOUT = Path(__file__).resolve().parents[1]


def chosen_scenarios() -> list[tuple]:
    """EVALUI_BENCH_SCENARIOS: which to run, by latency in ms ("10", "100", "10,100"); 100 by default."""
    wanted = os.environ.get("EVALUI_BENCH_SCENARIOS", "").strip() or "100"
    latencies = {int(part) for part in wanted.split(",") if part.strip()}
    return [s for s in SCENARIOS if round(s[4] * 1000) in latencies]


class Installation:
    """A copy of the package with no bytecode, its own cache folder and data folders: a fresh install
    as far as evalui's own files and caches go (site-packages is the venv's, compiled by `make`)."""

    def __init__(self, folder: Path, write_bytecode: bool):
        self.folder = folder
        self.site = folder / "site"
        self.cache = folder / "cache"
        shutil.copytree(CHECKOUT / "evalui", self.site / "evalui", ignore=shutil.ignore_patterns("__pycache__"))
        self.cache.mkdir()
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(self.site), os.environ.get("PYTHONPATH")])),
                        XDG_CACHE_HOME=str(self.cache), OPENAI_API_KEY="sk-bench")
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        if not write_bytecode:
            self.env["PYTHONDONTWRITEBYTECODE"] = "1"
        where = subprocess.run([sys.executable, "-c", "import evalui; print(evalui.__file__)"], env=self.env,
                               cwd=folder, capture_output=True, text=True, check=True).stdout.strip()
        if not where.startswith(str(self.site)):  # the editable install's finder must not win
            raise RuntimeError(f"the copy is not the evalui imported: {where}")

    def bytecode_files(self) -> int:
        return sum(1 for _ in (self.site / "evalui").rglob("*.pyc"))

    def cache_files(self) -> int:
        return sum(1 for path in self.cache.rglob("*") if path.is_file())

    def install_step(self) -> float:
        """What `make` runs after installing the packages; its wall seconds."""
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "evalui.benchmarks.bfcl.warm"], env=self.env, cwd=self.folder,
                       capture_output=True, text=True, check=True)
        return time.perf_counter() - started

    def run(self, peer: FastPeer, categories, limit, concurrency, tag: str) -> tuple[dict, float]:
        """``evalui bfcl run`` as engine_ceiling's evalui_cli runs it; (its JSON summary, wall seconds)."""
        env = dict(self.env, EVALUI_DATA_DIR=str(self.folder / f"data-{tag}"))
        command = [sys.executable, "-m", "evalui", "bfcl", "run", "--category", ",".join(categories),
                   "--limit", str(limit), "--mode", "fc", "--base-url", peer.base_url, "--model", "bench",
                   "--concurrency", str(concurrency), "--exp-id", tag]
        started = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=self.folder, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"evalui bfcl run failed ({done.returncode}): {done.stderr[-2000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1]), wall


def measure(peer: FastPeer, categories, limit, concurrency, folder: Path, write_bytecode: bool
            ) -> tuple[dict, list[float]]:
    """{state: [(summary, wall, evalui bytecode files, cache files) per repeat]}, install step seconds."""
    runs: dict[str, list[tuple[dict, float, int, int]]] = {state: [] for state in STATES}
    install_s = []
    for attempt in range(REPEATS):
        bare = Installation(folder / f"bare-{attempt}", write_bytecode)
        found = bare.bytecode_files(), bare.cache_files()
        runs["no install step"].append((*bare.run(peer, categories, limit, concurrency, "first"), *found))

        fresh = Installation(folder / f"fresh-{attempt}", write_bytecode)
        install_s.append(fresh.install_step())
        for state, tag in (("fresh install", "first"), ("warm", "again")):
            found = fresh.bytecode_files(), fresh.cache_files()
            runs[state].append((*fresh.run(peer, categories, limit, concurrency, tag), *found))
        shutil.rmtree(bare.folder)
        shutil.rmtree(fresh.folder)
    return runs, install_s


def report(name: str, runs: dict, install_s: list[float]) -> None:
    print(f"\n{name}\n  the whole command, best of {REPEATS} (s); install step {min(install_s):.2f} s "
          f"(best; not part of any run)")
    print(f"  {'state':18s}{'wall':>8s}" + "".join(f"{label:>10s}" for label, _ in PHASES)
          + "   bytecode  cache files  correct")
    for state in STATES:
        summary, wall, bytecode, cached = min(runs[state], key=lambda run: run[1])
        timings = summary.get("timings") or {}
        cells = "".join(f"{timings[key]:10.2f}" if timings.get(key) is not None else f"{'-':>10s}" for _, key in PHASES)
        print(f"  {state:18s}{wall:8.2f}{cells}   {bytecode:8d}  {cached:11d}  {summary['correct']}/{summary['total']}")
    print("  every run (wall s):  " + "; ".join(
        f"{state} " + ", ".join(f"{wall:.2f}" for _, wall, *_ in runs[state]) for state in STATES))
    warm = min(wall for _, wall, *_ in runs["warm"])
    for state in ("fresh install", "no install step"):
        first = min(wall for _, wall, *_ in runs[state])
        print(f"  {state} / warm: {first / warm:.2f} x" + (f"   (target <= {TARGET}: {'met' if first / warm <= TARGET else 'missed'})"
                                                         if state == "fresh install" else ""))


def main() -> None:
    print(f"first run after a fresh install against a warm one (best of {REPEATS}; machine: {os.cpu_count()} cores, "
          f"shared; PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r})")
    with tempfile.TemporaryDirectory() as folder:
        for name, categories, limit, concurrency, latency in chosen_scenarios():
            peer = FastPeer(categories, latency, Path(folder) / f"{concurrency}-{latency}-peer.log")
            try:
                for write_bytecode in (False, True):
                    runs, install_s = measure(peer, categories, limit, concurrency, Path(folder), write_bytecode)
                    report(f"{name}; {BYTECODE_POLICY[write_bytecode]}", runs, install_s)
            finally:
                peer.stop()


if __name__ == "__main__":
    main()
