"""``python -m evalui.benchmarks.bfcl.warm``: the install step `make` runs after installing, so that
no run pays for what one installation needs only once:

- the facts kept per bfcl-eval installation (its registry's plain fields, each category's size),
  kept in the user's cache folder; a run that finds them missing works them out itself, seconds
  inside its run phase;
- evalui's own bytecode. uv compiles what it installs into site-packages, but evalui is installed
  editable, so its modules stay sources; where PYTHONDONTWRITEBYTECODE is set (as on our machines)
  no run ever writes their bytecode and every run compiles each module it imports, and where it is
  not set the first run compiles and writes them. compileall writes whatever that variable says.
"""

from __future__ import annotations

import compileall
import time
from collections.abc import Callable
from pathlib import Path


def warm() -> float:
    """Build both install caches; the seconds it took."""
    from evalui.benchmarks.bfcl.registry import registry_snapshot
    from evalui.benchmarks.bfcl.scoring.leaderboard import leaderboard

    started = time.perf_counter()
    registry_snapshot()
    leaderboard({})  # counts every leaderboard category not run: all of them, as a run's summary asks
    return time.perf_counter() - started


def built() -> bool:
    """Whether this installation's facts are kept already (`make`, the dashboard's start or an earlier run)."""
    from evalui.benchmarks.bfcl.dataset_sizes import cache_path as sizes_file
    from evalui.benchmarks.bfcl.registry import cache_path as registry_file

    return all(path is not None and path.is_file() for path in (registry_file(), sizes_file()))


def build_once(say: Callable[[str], object]) -> None:
    """An install step for an installation that skipped `make`: a run calls it while it loads, so
    that working the facts out is said, and kept out of its run phase and its exports."""
    if built():
        return
    say("evalui: working out bfcl-eval's registry snapshot and category sizes once for this installation"
        " (`make` does it at install time)")
    warm()


def compile_package() -> bool:
    """Write the bytecode of every module of the evalui package imported here (the checkout's, for
    an editable install); False when some module could not be compiled or written."""
    import evalui

    # A folder that cannot be written (a read-only install) only leaves runs compiling, as before.
    return bool(compileall.compile_dir(Path(evalui.__file__).parent, quiet=2))


def main() -> None:
    seconds = warm()
    print(f"evalui: bfcl-eval's registry snapshot and category sizes are kept ({seconds:.1f} s, once per installation)")
    started = time.perf_counter()
    compiled = compile_package()
    print(f"evalui: its modules' bytecode is {'written' if compiled else 'written in part (some could not be)'} "
          f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
