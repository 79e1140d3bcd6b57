"""Generic code names no benchmark: knowledge of BFCL, GAIA or AIME lives in its own package
(evalui/benchmarks/<name>/) and its tab, and reaches the rest through the Benchmark spec's hooks.

The check reads code only (identifiers and string literals, not comments or docstrings), so a
sentence that gives an example may name one. The one generic module that names them is the registry
(evalui/core/registry.py): one line per benchmark, the string that finds its spec.
"""

from __future__ import annotations

import io
import re
import token
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalui"
REGISTRY = "core/registry.py"  # one registry line per benchmark
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


def generic_counts(package: Path = PACKAGE) -> dict[str, int]:
    counts = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if relative.startswith(OWN):
            continue
        found = names_in_code(path.read_text(encoding="utf-8"))
        if found:
            counts[relative] = found
    return counts


def test_the_checker_reads_code_not_prose():
    source = '"""About BFCL."""\n# gaia here\nx = "aime"\nfrom evalui.benchmarks.bfcl import spec\nbfclish = 1\n'
    assert names_in_code(source) == 2  # the string and the import; not the docstring, comment or bfclish


def test_generic_code_names_no_benchmark():
    counts = generic_counts()
    assert REGISTRY in counts, "the registry names the built-in benchmarks; the walk should see it"
    named = {f: n for f, n in counts.items() if f != REGISTRY}
    assert not named, f"generic code names a benchmark (file: count); move the knowledge to its package: {named}"


def test_the_walk_sees_a_name_planted_in_generic_code(tmp_path):
    import shutil

    copy = tmp_path / "evalui"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "data"))
    (copy / "run" / "planted.py").write_text('KIND = "gaia"\n', encoding="utf-8")
    assert generic_counts(copy) == {REGISTRY: generic_counts()[REGISTRY], "run/planted.py": 1}
