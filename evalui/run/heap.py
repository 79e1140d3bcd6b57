"""The cyclic garbage collector during a run of the evalui command, which makes one run and exits.

By the time a run starts, that process holds everything it imported (bfcl-eval alone imports
anthropic, openai and qwen-agent), and all of it lives until the process ends. A full collection
walks all of it, one or two times in a long run and more in the exports (the cost is in
bench/RESULTS.md). Young collections, which free most of a run's cyclic garbage, stay as they are; full ones
come a hundred times less often (the peak memory of that run did not change), and the defaults are
back before the command returns. The dashboard, a long-lived process, keeps the defaults. At the
process's exit, what is still alive is frozen (``freeze_at_exit``).
"""

from __future__ import annotations

import atexit
import gc
import io
from collections.abc import Iterator
from contextlib import contextmanager

FEWER_FULL_COLLECTIONS = 100  # times fewer than Python's default


@contextmanager
def fewer_full_collections() -> Iterator[None]:
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, full * FEWER_FULL_COLLECTIONS)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)


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
