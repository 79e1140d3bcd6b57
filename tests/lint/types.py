"""mypy over the whole evalui package, once, with pyproject.toml's [tool.mypy] settings: its errors
grouped per file and held to a baseline that only shrinks (mypy_baseline.json beside this file).

The packages in STRICT have no baseline entry: they stay free of mypy errors. Elsewhere a file may
keep the errors it had when the gate came, never more; when a fix lowers a count, the baseline is
lowered with it (tests/lint/test_types.py fails until it is).

Run as a script (pre-commit does: `.venv/bin/python tests/lint/types.py`), it prints the errors of
every file over its baseline and exits 1 when there is one; `--write-baseline` rewrites the
baseline from the tree as it is (for lowering it; read the diff before committing it).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "evalui"
CONFIG = ROOT / "pyproject.toml"
BASELINE = Path(__file__).with_name("mypy_baseline.json")
CACHE = ROOT / ".mypy_cache"
# Packages held to no mypy error at all: they never get a baseline entry.
STRICT = ("evalui/core/", "evalui/run/", "evalui/scanners/", "evalui/stats/", "evalui/store/")
# One error per line without --pretty: "path:line: error: message  [code]" (a column after the line if asked).
ERROR = re.compile(r"^(?P<path>[^:\n]+\.py):\d+(?::\d+)?: error: (?P<message>.*)$")


def run_mypy(root: Path = ROOT, cache_dir: Path = CACHE) -> dict[str, list[str]]:
    """mypy's errors in the evalui package under ``root``: {file relative to root: ["line: message", ...]}."""
    command = [sys.executable, "-m", "mypy", "--config-file", str(CONFIG), "--cache-dir", str(cache_dir),
               "--no-pretty", "--no-color-output", "--no-error-summary", "--show-error-codes", PACKAGE]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=900)
    errors: dict[str, list[str]] = defaultdict(list)
    for line in done.stdout.splitlines():
        found = ERROR.match(line)
        if found:
            path = found["path"].replace("\\", "/")
            errors[path].append(line[len(found["path"]) + 1:])
    # 0: clean; 1: errors found. Anything else (2: a bad option, a crash) is no verdict on the code.
    if done.returncode not in (0, 1) or (done.returncode == 1 and not errors):
        raise RuntimeError(f"mypy did not run (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return dict(sorted(errors.items()))


def counts(errors: dict[str, list[str]]) -> dict[str, int]:
    return {path: len(found) for path, found in errors.items()}


def read_baseline(path: Path = BASELINE) -> dict[str, int]:
    return json.loads(path.read_text(encoding="utf-8"))


def is_strict(path: str) -> bool:
    return path.startswith(STRICT)


def over_baseline(found: dict[str, int], baseline: dict[str, int]) -> dict[str, tuple[int, int]]:
    """{file: (allowed, found)} for every file with more errors than its baseline (a strict file: any)."""
    allowed = {path: 0 if is_strict(path) else baseline.get(path, 0) for path in found}
    return {path: (allowed[path], n) for path, n in found.items() if n > allowed[path]}


def under_baseline(found: dict[str, int], baseline: dict[str, int]) -> dict[str, tuple[int, int]]:
    """{file: (baseline, found)} for every file with fewer errors than its baseline says."""
    return {path: (n, found.get(path, 0)) for path, n in baseline.items() if found.get(path, 0) < n}


def main(argv: list[str]) -> int:
    errors = run_mypy()
    found = counts(errors)
    if "--write-baseline" in argv:
        kept = {path: n for path, n in found.items() if not is_strict(path)}
        BASELINE.write_text(json.dumps(kept, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{BASELINE.name}: {sum(kept.values())} errors in {len(kept)} files")
    baseline = read_baseline()
    over = over_baseline(found, baseline)
    for path, (allowed, n) in over.items():
        print(f"{path}: {n} mypy errors, {allowed} allowed" + (" (a strict package)" if is_strict(path) else ""))
        for error in errors[path]:
            print(f"  {path}:{error}")
    under = under_baseline(found, baseline)
    if under:
        print(f"fewer mypy errors than the baseline: lower it in {BASELINE.name} (file: (baseline, now)): {under}")
    print(f"mypy: {sum(found.values())} errors in {len(found)} files; baseline {sum(baseline.values())}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
