"""How many entries bfcl-eval's own loader gives for each category, kept per installed dataset.

The leaderboard's figures count a category that a run did not cover as 0 out of its size, and
bfcl-eval learns that size by loading the whole category (``load_dataset_entry``, every function
document included) only to take its length, for every category a run did not cover, in every
process that summarises or exports a BFCL run (the cost is in bench/RESULTS.md). The sizes depend only on the
installed bfcl-eval (its data files and the loader in ``bfcl_eval/utils.py``), so they are counted
by that loader once per installation and kept (evalui.benchmarks.bfcl.install_cache).
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path

from evalui.benchmarks.bfcl import install_cache

_lock = threading.Lock()


def _fingerprint() -> bytes:
    loader = install_cache.installed_module_file("bfcl_eval.utils")
    data = loader.parent / "data"
    stats = sorted(f"{p.relative_to(data)}:{p.stat().st_size}:{p.stat().st_mtime_ns}"
                   for p in data.rglob("*") if p.is_file())
    return loader.read_bytes() + "\n".join(stats).encode()


def cache_path() -> Path | None:
    """Where this installation's category sizes are kept (None: no cache folder)."""
    return install_cache.cache_file("bfcl-category-sizes", _fingerprint())


@functools.cache
def _kept() -> tuple[Path | None, dict[str, int]]:
    cache = cache_path()
    sizes = install_cache.read_json(cache)
    valid = isinstance(sizes, dict) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                            for v in sizes.values())
    return cache, dict(sizes) if valid else {}


def entry_count(category: str, include_prereq: bool = True, include_language_specific_hint: bool = True) -> int:
    """``len(bfcl_eval.utils.load_dataset_entry(category, ...))``, counted once per installation."""
    key = f"{category}|{int(include_prereq)}|{int(include_language_specific_hint)}"
    cache, sizes = _kept()
    with _lock:
        if key not in sizes:
            from bfcl_eval.utils import load_dataset_entry

            sizes[key] = len(load_dataset_entry(category, include_prereq=include_prereq,
                                                include_language_specific_hint=include_language_specific_hint))
            install_cache.write_json(cache, sizes)
        return sizes[key]


def counting_loader(test_category: str, include_prereq: bool = True, include_language_specific_hint: bool = True):
    """A stand-in for ``load_dataset_entry`` where only the length is read: placeholders, as many as
    the category's entries."""
    return [None] * entry_count(test_category, include_prereq, include_language_specific_hint)
