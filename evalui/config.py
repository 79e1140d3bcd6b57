"""Where evalui keeps its data: one folder, set by EVALUI_DATA_DIR."""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "EVALUI_DATA_DIR"


def data_dir() -> Path:
    """The data folder (store, run artefacts, caches); created on first use."""
    path = Path(os.environ.get(DATA_DIR_ENV) or "evalui_data").expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def runs_dir() -> Path:
    path = data_dir() / "runs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def positive_number(name: str, default, kind=float):
    """A positive int or float from the environment variable ``name``; ``default`` when unset or bad."""
    try:
        value = kind(os.environ.get(name, "").strip() or default)
    except ValueError:
        return default
    return value if value > 0 else default
