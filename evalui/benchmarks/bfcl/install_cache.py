"""Facts about the installed bfcl-eval, worked out once per installation and kept as JSON in the
user's cache folder (``$XDG_CACHE_HOME/evalui``), named by a digest of what they were read from.

Both facts kept here cost seconds of CPU in every process that needs them, and cannot change
while the same bfcl-eval stays installed: its model registry's plain fields
(evalui.benchmarks.bfcl.registry) and the number of entries in each category
(evalui.benchmarks.bfcl.dataset_sizes). A file that is missing or damaged is worked out again;
a home folder that cannot be written only costs the next process the slow way again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from pathlib import Path


def installed_module_file(module_name: str) -> Path:
    """The source file of an installed module, found without importing it."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or not spec.origin:
        raise ImportError(f"No module named {module_name!r}")
    return Path(spec.origin)


def cache_file(kind: str, fingerprint: bytes) -> Path | None:
    """Where the fact ``kind`` read from an installation with this fingerprint is kept; None when
    there is no home folder to keep it in."""
    # The user's cache folder (XDG), not the data folder: every run and every data folder on the
    # machine reads the same installation. platformdirs is not a dependency for one path.
    try:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evalui"
    except (OSError, RuntimeError, KeyError):  # Path.home() fails without a home folder
        return None
    return root / f"{kind}-{hashlib.sha256(fingerprint).hexdigest()[:16]}.json"


def read_json(path: Path | None):
    """The file's JSON value, or None when it is missing or does not parse."""
    if path is None:
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def write_json(path: Path | None, value) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as handle:
            json.dump(value, handle)
        os.replace(handle.name, path)  # readers see the whole file or none
    except OSError:
        pass
