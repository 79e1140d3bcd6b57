"""One package per benchmark or task: load, request, parse, score, metrics, export."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

SETTINGS_MODULE = "settings"


def settings_models(package: str = "evalui.benchmarks") -> list[type]:
    """Every benchmark package's own settings model (a ``settings`` module whose ``Settings`` declares
    its ``EVALUI_*`` variables), in the packages' order. Found by walking the package, as the UI's
    string catalogs are, so no benchmark is named and no spec loaded."""
    root = importlib.import_module(package)
    models = []
    for found in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
        name = f"{package}.{found.name}.{SETTINGS_MODULE}"
        if found.ispkg and importlib.util.find_spec(name) is not None:
            models.append(importlib.import_module(name).Settings)
    return models
