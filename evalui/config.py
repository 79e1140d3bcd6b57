"""Where evalui keeps its data: one folder, set by EVALUI_DATA_DIR."""

from __future__ import annotations

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

