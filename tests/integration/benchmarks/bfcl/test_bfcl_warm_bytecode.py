"""The install step (`python -m evalui.benchmarks.bfcl.warm`) writes evalui's bytecode, even where
PYTHONDONTWRITEBYTECODE is set, so that no run compiles evalui's modules: checked on a copy of the
package without bytecode, first on PYTHONPATH (the checkout's own files are left alone)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import evalui

PACKAGE = Path(evalui.__file__).resolve().parent


def test_the_install_step_writes_bytecode_for_every_module_of_the_package_imported(tmp_path):
    copy = tmp_path / "site" / "evalui"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(copy.parent), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-m", "evalui.benchmarks.bfcl.warm"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "bytecode is written" in done.stdout
    sources = sorted(copy.rglob("*.py"))
    assert sources
    assert [p for p in sources if not Path(importlib.util.cache_from_source(str(p))).exists()] == []
    # Each is current: its header holds the source's modification time and size, which is what an
    # import compares before it reads the bytecode rather than compiling the source.
    stale = []
    for source in sources:
        header = Path(importlib.util.cache_from_source(str(source))).read_bytes()[:16]
        stat = source.stat()
        if header[:4] != importlib.util.MAGIC_NUMBER or header[8:16] != (
                int(stat.st_mtime).to_bytes(4, "little") + (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little")):
            stale.append(source)
    assert stale == []
