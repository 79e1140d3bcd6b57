"""What a sandboxed program may read: the interpreter, its libraries and a few system folders, and
never the data folder, the current folder or the project checkout.

``sys.path`` is no guide: under ``python app.py`` or ``python -m evalui`` its first entry is the
project folder (where the default ``./evalui_data`` lives), and an editable install adds the
checkout too. So the list starts from the interpreter's own prefixes (the base installation's
standard library and the virtual environment's site-packages) and the system folders, then cuts
the forbidden folders out of any of them that holds one. Landlock grants a folder with everything
beneath it, so a folder holding a forbidden one is replaced by its entries, recursively, all but
the forbidden one. A folder inside the current folder or the checkout (a ``.venv`` there) stays
readable; one inside the data folder does not.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
import tempfile
from pathlib import Path

SYSTEM = ["/usr", "/lib", "/lib64", "/bin", "/etc/ssl", "/etc/localtime", "/etc/mime.types", "/dev/null",
          "/dev/urandom", "/proc/cpuinfo", "/proc/meminfo", "/sys/devices/system/cpu"]
MAX_DEPTH = 40


def interpreter_roots() -> list[str]:
    """The installation and the environment that the sandbox's python runs from."""
    roots = {sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix, os.path.realpath(sys.executable)}
    for variables in (None, {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}):
        paths = sysconfig.get_paths(vars=variables)
        roots.update(paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib"))
    roots.update(site.getsitepackages())
    return sorted(root for root in roots if root)


def project_root() -> Path | None:
    """The checkout evalui runs from, unless it is installed into site-packages."""
    package = Path(__file__).resolve().parents[1]
    if package.parent.name in ("site-packages", "dist-packages"):
        return None
    return package.parent


def forbidden(data_dirs: list[Path], sessions: Path | None) -> list[tuple[str, bool]]:
    """(folder, whether what lies inside it is refused too) for the folders no program may read."""
    found: list[tuple[Path, bool]] = [(Path.cwd(), False), (Path.home(), False)]
    if (checkout := project_root()) is not None:
        found.append((checkout, False))
    if sessions is not None:
        found.append((sessions, False))  # other tasks' sessions (the own one is granted by name)
    data = [*data_dirs, Path("/etc/ssl/private")]  # TLS keys: a root server's program reads as root
    for variable, default in (("GRADIO_TEMP_DIR", Path(tempfile.gettempdir()) / "gradio"), ("HF_HOME", None)):
        value = os.environ.get(variable)
        data.extend(p for p in (Path(value) if value else default,) if p is not None)
    found.extend((path, True) for path in data)
    return [(os.path.realpath(path), inner) for path, inner in found]


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def carve(path: str, refused: list[tuple[str, bool]], depth: int = 0) -> list[str]:
    """``path`` (resolved) or, when it holds a refused folder, its entries carved likewise."""
    real = os.path.realpath(path)
    if not os.path.exists(real):
        return []
    for folder, inner in refused:
        if real == folder or (inner and _inside(real, folder)):
            return []
    if not any(_inside(folder, real) for folder, _ in refused):
        return [real]
    if depth >= MAX_DEPTH or not os.path.isdir(real):
        return []
    try:
        entries = sorted(os.listdir(real))
    except OSError:
        return []
    return [kept for name in entries for kept in carve(os.path.join(real, name), refused, depth + 1)]


def read_only_roots(data_dirs: list[Path], sessions: Path | None) -> list[str]:
    """The folders and files a program may read, besides its own session."""
    refused = forbidden(data_dirs, sessions)
    kept: list[str] = []
    for root in [*SYSTEM, *interpreter_roots()]:
        for path in carve(root, refused):
            if path not in kept:
                kept.append(path)
    return kept
