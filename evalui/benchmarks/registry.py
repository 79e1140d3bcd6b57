"""Every benchmark evalui knows: one line each. The CLI, the tabs, the Runs tab and resume read it.

A benchmark outside this package is added with ``EVALUI_BENCHMARKS=name=module:attr[,…]`` (the
module must be importable), or with ``register()`` in the same process.
"""

from __future__ import annotations

import importlib
import os

from evalui.engine.benchmark import Benchmark

EXTRA_ENV = "EVALUI_BENCHMARKS"

BUILT_IN: dict[str, str] = {
    "bfcl": "evalui.benchmarks.bfcl.spec:BENCHMARK",
    "gaia": "evalui.benchmarks.gaia.spec:BENCHMARK",
    "aime-generate": "evalui.benchmarks.aime.spec:GENERATION",
    "aime-judge": "evalui.benchmarks.aime.spec:JUDGING",
    "aime-winrate": "evalui.benchmarks.aime.spec:WINRATE_SPEC",
}

_registered: dict[str, str] = {}


def register(name: str, target: str) -> None:
    _registered[name] = target


def _extra() -> dict[str, str]:
    entries = {}
    for item in os.environ.get(EXTRA_ENV, "").split(","):
        name, _, target = item.strip().partition("=")
        if name and target:
            entries[name.strip()] = target.strip()
    return entries


def targets() -> dict[str, str]:
    return {**BUILT_IN, **_extra(), **_registered}


def names() -> list[str]:
    return list(targets())


def extra_names() -> list[str]:
    """Benchmarks that are not built in: they get the generic CLI command and tab."""
    return [name for name in targets() if name not in BUILT_IN]


def get(name: str) -> Benchmark:
    target = targets().get(name)
    if target is None:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(names())}")
    module_name, _, attribute = target.partition(":")
    spec = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(spec, Benchmark) or spec.name != name:
        raise TypeError(f"{target} is not the Benchmark spec named {name!r}")
    return spec
