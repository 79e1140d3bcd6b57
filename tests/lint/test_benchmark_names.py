"""Generic code names no benchmark: knowledge of BFCL, GAIA or AIME lives in its own package
(evalui/benchmarks/<name>/) and its tab, and reaches the rest through the Benchmark spec's hooks.

The check reads code only (identifiers and string literals, not comments or docstrings), so a
sentence that gives an example may name one. Generic modules that still name a benchmark are held
to a baseline that only shrinks (benchmark_names_baseline.json beside this file): a new name fails,
and so does a count below the baseline until the baseline is lowered with it.
"""

from __future__ import annotations

import io
import json
import re
import token
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalui"
BASELINE = Path(__file__).with_name("benchmark_names_baseline.json")
NAME = re.compile(r"(?<![a-z0-9])(bfcl|gaia|aime)(?![a-z0-9])", re.IGNORECASE)
# A benchmark's own places: its package, and the tab that is its front end.
OWN = ("benchmarks/", "ui/tabs/bfcl.py", "ui/tabs/gaia.py", "ui/tabs/aime.py")


def names_in_code(source: str) -> int:
    """Benchmark names in identifiers and string literals, docstrings and comments left out."""
    count, previous = 0, token.NEWLINE
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == token.STRING and previous in (token.NEWLINE, token.INDENT, token.DEDENT, token.NL):
            pass  # a string standing as a statement: a docstring
        elif tok.type in (token.NAME, token.STRING) or tok.type == getattr(token, "FSTRING_MIDDLE", -1):
            count += len(NAME.findall(tok.string))
        if tok.type not in (token.COMMENT, token.NL):
            previous = tok.type
    return count


def generic_counts() -> dict[str, int]:
    counts = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith(OWN):
            continue
        found = names_in_code(path.read_text(encoding="utf-8"))
        if found:
            counts[relative] = found
    return counts


def test_the_checker_reads_code_not_prose():
    source = '"""About BFCL."""\n# gaia here\nx = "aime"\nfrom evalui.benchmarks.bfcl import spec\nbfclish = 1\n'
    assert names_in_code(source) == 2  # the string and the import; not the docstring, comment or bfclish


def test_generic_code_names_no_new_benchmark():
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    counts = generic_counts()
    grown = {f: (baseline.get(f, 0), n) for f, n in counts.items() if n > baseline.get(f, 0)}
    assert not grown, f"generic code names a benchmark more than before (file: (baseline, now)): {grown}"
    shrunk = {f: (n, counts.get(f, 0)) for f, n in baseline.items() if counts.get(f, 0) < n}
    assert not shrunk, f"fewer benchmark names than the baseline: lower it in {BASELINE.name}: {shrunk}"
