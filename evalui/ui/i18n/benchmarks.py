"""The texts benchmarks bring to the dashboard (their tabs', and the Score tab's for their files): every
package under evalui.benchmarks may hold a ``strings`` module whose ``STRINGS`` maps keys to
(English, Chinese) pairs, as the catalog's own modules do. Found by walking the package, so this
names no benchmark, and loads no spec: a catalog is a plain dict."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

CATALOG_MODULE = "strings"


def benchmark_strings(package: str = "evalui.benchmarks") -> dict[str, tuple[str, str]]:
    """Every benchmark package's catalog, merged; ValueError when two give one key different texts."""
    root = importlib.import_module(package)
    merged: dict[str, tuple[str, str]] = {}
    for found in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
        name = f"{package}.{found.name}.{CATALOG_MODULE}"
        if not found.ispkg or importlib.util.find_spec(name) is None:
            continue
        for key, pair in importlib.import_module(name).STRINGS.items():
            if merged.get(key, pair) != pair:
                raise ValueError(f"UI string {key!r}: {name} gives it other texts than another benchmark")
            merged[key] = pair
    return merged
