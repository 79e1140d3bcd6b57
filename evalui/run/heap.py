"""The cyclic garbage collector during a run of the evalui command, which makes one run and exits.

By the time a run starts, that process holds everything it imported (bfcl-eval alone imports
anthropic, openai and qwen-agent), and all of it lives until the process ends. A full collection
walks all of it, one or two times in a long run and more in the exports (the cost is in
bench/RESULTS.md), so full collections come a hundred times less often (the peak memory of that run
did not change).

Young collections come every YOUNG_THRESHOLD allocations instead of Python's 700, and what the
run's preparation left alive is frozen just before the requests start (``settle_before_run_phase``).
Against a fast endpoint a run finishes thousands of samples a second, and each sample's answer,
verdict and statements wait for the store's next group commit: every 700 allocations a young
collection walked those still waiting, and each tenth collection walked the preparation's objects
too. Over the 10 ms benchmark's run phase (3,641 samples, bench/RESULTS.md) that was 80-100
collections and 0.07-0.13 s (the run's ``gc_s``); now 3-4 collections and 0.01-0.03 s. What the
collector may hold back is at most YOUNG_THRESHOLD objects more. Both come back to Python's defaults
before the command returns. The dashboard, a long-lived process, keeps the defaults. At the
process's exit, what is still alive is frozen (``freeze_at_exit``).
"""

from __future__ import annotations

import atexit
import gc
import io
from collections.abc import Iterator
from contextlib import contextmanager

FEWER_FULL_COLLECTIONS = 100  # times fewer than Python's default
YOUNG_THRESHOLD = 10_000  # allocations between young collections (Python's default: 700)


# Inside fewer_collections(), the evalui command's run may freeze the heap (not the dashboard's, and
# not in a process that froze objects itself: unfreezing would undo its freeze too).
_may_freeze = False
_froze = False


@contextmanager
def fewer_collections() -> Iterator[None]:
    global _may_freeze, _froze
    young, middle, full = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, full * FEWER_FULL_COLLECTIONS)
    _may_freeze, _froze = gc.get_freeze_count() == 0, False
    try:
        yield
    finally:
        if _froze:
            gc.unfreeze()  # what settle_before_run_phase froze is the collector's again
        _may_freeze = _froze = False
        gc.set_threshold(young, middle, full)


def settle_before_run_phase() -> None:
    """In the evalui command, just before the requests start: move what the run's preparation left
    alive (the checker and its data, the requests built ahead, the claimed samples) out of the
    collector's reach, so that the run phase's collections walk only what the run phase made.
    Without it, the first middle-generation collection of the run phase walked all of that (tens
    of milliseconds while no request was sent). Objects are still freed by their reference counts;
    the dashboard's runs, outside the command, leave the collector alone."""
    global _froze
    if _may_freeze:
        gc.freeze()
        _froze = True


def freeze_at_exit() -> None:
    """At the interpreter's exit, flush every open file, then move every object still alive out of
    the collector's reach.

    Python's shutdown collects more than once over everything the process holds (the libraries imported,
    the run's samples), and frees its cycles one by one: 0.9 s of the 10 ms run's command after its
    summary line (bench/RESULTS.md, "Engine phases"), with nothing left to free that matters. Frozen,
    those collections find nothing to walk; objects are still freed by their reference counts. A file
    left open in a cycle would then never be finalised, so its buffer is flushed here first. It runs
    only at exit (atexit), so a process that calls the command and goes on is not affected."""
    atexit.unregister(_flush_and_freeze)  # a process that runs the command many times (the tests) does it once
    atexit.register(_flush_and_freeze)


# The buffered file types (concrete classes: io.IOBase is an ABC, whose isinstance costs a
# microsecond an object, a third of a second over a run's heap).
_BUFFERED = (io.TextIOWrapper, io.BufferedWriter, io.BufferedRandom)


def _flush_and_freeze() -> None:
    for obj in gc.get_objects():
        if isinstance(obj, _BUFFERED):
            try:
                if not obj.closed:
                    obj.flush()
            except Exception:  # a broken pipe or a closed descriptor: what the usual shutdown would ignore too
                pass
    gc.freeze()
