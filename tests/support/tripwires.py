"""Tripwires: a benchmark whose task must not be built during a block (a rescore builds none)."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def no_task_built(benchmark):
    """Within the block, building ``benchmark``'s task fails the test. The spec is a frozen dataclass
    shared by the process, so its ``task`` is swapped for the block and always put back."""
    built = []

    def refuse(*args, **kwargs):
        built.append(args)
        raise AssertionError(f"{benchmark.name}'s task was built")

    original = benchmark.task
    object.__setattr__(benchmark, "task", refuse)
    try:
        yield built
    finally:
        object.__setattr__(benchmark, "task", original)
    assert not built, f"{benchmark.name}'s task was built {len(built)} time(s)"
