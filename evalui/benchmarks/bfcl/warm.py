"""``python -m evalui.benchmarks.bfcl.warm``: work out the facts kept per bfcl-eval installation
(its registry's plain fields, each category's size) once, at install time, so that no run pays for
them. `make` runs it after installing; a run that finds them missing works them out itself."""

from __future__ import annotations

import time


def warm() -> float:
    """Build both install caches; the seconds it took."""
    from evalui.benchmarks.bfcl.registry import registry_snapshot
    from evalui.benchmarks.bfcl.scoring.leaderboard import leaderboard

    started = time.perf_counter()
    registry_snapshot()
    leaderboard({})  # counts every leaderboard category not run: all of them, as a run's summary asks
    return time.perf_counter() - started


def main() -> None:
    seconds = warm()
    print(f"evalui: bfcl-eval's registry snapshot and category sizes are kept ({seconds:.1f} s, once per installation)")


if __name__ == "__main__":
    main()
