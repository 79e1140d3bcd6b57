"""The cyclic garbage collector during a run of the evalui command, which makes one run and exits.

By the time a run starts, that process holds everything it imported (bfcl-eval alone imports
anthropic, openai and qwen-agent), and all of it lives until the process ends. A full collection
walks all of it, one or two times in a long run and more in the exports (the cost is in
bench/RESULTS.md). Young collections, which free most of a run's cyclic garbage, stay as they are; full ones
come a hundred times less often (the peak memory of that run did not change), and the defaults are
back before the process exits, so its shutdown is Python's usual one. The dashboard, a long-lived
process, keeps the defaults.
"""

from __future__ import annotations

import gc
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
