"""Where evalui keeps its data: one folder, set by EVALUI_DATA_DIR."""

from __future__ import annotations

import os
from pathlib import Path

from evalui.settings import read

DATA_DIR_ENV = "EVALUI_DATA_DIR"


def data_dir() -> Path:
    """The data folder (store, run artefacts, caches); created on first use."""
    path = Path(read("data_dir")).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def runs_dir() -> Path:
    path = data_dir() / "runs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def positive_number(name: str, default, kind=float):
    """A positive int or float from the environment variable ``name``; ``default`` when unset or bad.

    Superseded by ``evalui.settings.read`` (a field with ``gt=0``); kept only for evalui.store.search,
    which another change moves to it (tests/lint/test_settings_reads.py allow-lists that read).
    Remove it then."""
    try:
        value = kind(os.environ.get(name, "").strip() or default)
    except ValueError:
        return default
    return value if value > 0 else default
