"""Docstrings and comments in evalui/ name no file that is not there and carry no measured time (issue 40).

A docstring outlives the code it describes: a path it names goes stale when a file moves, and a
figure it quotes ("takes 2.6 s") is true of one machine on one day. Paths belong in docstrings only
while they resolve; measurements belong in bench/RESULTS.md, with the command that produced them.

The rules, applied to every module, class and function docstring under evalui/ (read with ast) and
to every comment (read with tokenize); other string literals are what the program says, not notes
about it, and are out of scope:

- A path is a whitespace-separated token (quotes, backticks and brackets trimmed, and trailing
  punctuation) that contains "/" and either ends in .py, .md, .json, .txt or .toml or starts with
  evalui/, tests/, bench/, schemas/ or docs/. URLs, absolute paths and tokens with a wildcard or a
  placeholder (``*``, ``<run>``, ``{name}``, ``$VAR``, ``...``) are not repository paths and are
  skipped, as are paths inside another distribution (their first part is an importable top-level
  module other than evalui, e.g. bfcl_eval/...). A path passes when it exists relative to the
  repository root, to the evalui package (docstrings often say store/run_store.py for
  evalui/store/run_store.py) or to the module's own folder.
- A measured time is a number with a unit of time (ms, s, sec, seconds, min, minutes) that follows,
  within a few words of the same sentence, a word that reports a measurement: took, takes, taking,
  cost, costs, spent, measured, about; or that is followed by "of CPU". A bound or a default ("a
  5 s deadline", "every 2 s") has no such word and passes.
- A dotted name evalui.a.b resolves to a module or package, or to a name the deepest such module
  mentions (evalui.benchmarks.registry was one that had moved); a name followed by a wildcard or
  a placeholder is a pattern and passes.
- No pointer to README: it is for users now, and the detail it held lives in docs/ (name the page).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalui"

# Files that fail here but that another session is editing: listed (with a TODO naming the issue)
# instead of being fixed under its feet. Empty when this test landed: the files other sessions held
# then (stats/calibration.py, cli/aime.py, run/phases.py, lifecycle.py, runner.py) all passed.
SKIPPED: set[str] = set()

EXTENSIONS = (".py", ".md", ".json", ".txt", ".toml")
PREFIXES = ("evalui/", "tests/", "bench/", "schemas/", "docs/")
PLACEHOLDER = re.compile(r"[*<>{}$`]|\.\.\.|\[|\]")
README = re.compile(r"(?<![\w/.-])README\b(?!\.md/)")
DOTTED = re.compile(r"(?<![\w./])evalui(?:\.[A-Za-z_]\w*)+")
TRIM = "`'\"()[],;:!?"
_DURATION = r"(?<![\w.])\d+(?:[.,]\d+)?(?:\s?[-\u2013]\s?\d+(?:[.,]\d+)?)?\s?(?:ms|s|sec|seconds|min|minutes)\b"
TIME = re.compile(
    r"\b(?:took|takes|taking|cost|costs|spent|spends|measured|about)\b[^.;:!?\n]{0,40}?" + _DURATION
    + r"|" + _DURATION + r"\s+of\s+(?:\w+\s+)?CPU\b",
    re.IGNORECASE,
)


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def docstrings(source: str):
    """(line, docstring) of the module and of every class and function in it."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield getattr(node, "lineno", 1), text


def comments(source: str):
    """(line, text) of every comment."""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string


def _trim(raw: str) -> str:
    token = raw
    while token and (token[0] in TRIM or token[-1] in TRIM + "."):
        token = token[1:] if token[0] in TRIM else token[:-1]
    return token


def path_tokens(text: str):
    for raw in text.split():
        token = _trim(raw)
        if "/" not in token or "://" in token or token.startswith(("/", "~")):
            continue
        if PLACEHOLDER.search(token):
            continue
        if token.endswith(EXTENSIONS) or token.startswith(PREFIXES):
            yield token


def _bases(module: Path) -> tuple[Path, ...]:
    return ROOT, PACKAGE, module.parent


def path_exists(token: str, module: Path) -> bool:
    first = token.split("/", 1)[0]
    if not token.startswith(PREFIXES) and not any((base / first).exists() for base in _bases(module)):
        # Not a folder of this repository: a path inside another distribution (bfcl-eval's
        # eval_checker/..., say), which this repository cannot keep true or false.
        return True
    return any((base / token).exists() for base in _bases(module))


def dotted_names(text: str):
    for match in DOTTED.finditer(text):
        if text[match.end():match.end() + 1] in ("*", "<", "{"):
            continue  # a pattern (evalui.runs.viewer_*), not a name
        yield match.group(0).rstrip(".")


def dotted_exists(name: str) -> bool:
    """evalui.a.b resolves to a module or package, or to a name defined in the deepest one."""
    parts = name.split(".")
    deepest, rest = None, parts
    for i in range(1, len(parts) + 1):
        base = ROOT.joinpath(*parts[:i])
        if base.with_suffix(".py").is_file():
            deepest, rest = base.with_suffix(".py"), parts[i:]
        elif (base / "__init__.py").is_file():
            deepest, rest = base / "__init__.py", parts[i:]
        else:
            break
    if deepest is None:
        return False
    if not rest:
        return True
    return re.search(rf"\b{re.escape(rest[0])}\b", deepest.read_text(encoding="utf-8")) is not None


def problems(module: Path) -> list[str]:
    rel = module.relative_to(ROOT).as_posix()
    found = []
    source = module.read_text(encoding="utf-8")
    for line, text in [*docstrings(source), *comments(source)]:
        for token in path_tokens(text):
            if not path_exists(token, module):
                found.append(f"{rel}:{line}: names {token}, which does not exist")
        for name in dotted_names(text):
            if not dotted_exists(name):
                found.append(f"{rel}:{line}: names {name}, which evalui does not have")
        if README.search(text):
            found.append(f"{rel}:{line}: points to README, which is for users now; name the docs/ page")
        for match in TIME.finditer(text):
            found.append(f"{rel}:{line}: a measured time ({' '.join(match.group(0).split())!r})")
    return found


def test_rules_catch_what_they_should():
    here = PACKAGE / "store" / "run_store.py"
    assert list(path_tokens("see `tests/test_layers.py`, then docs/index.md.")) == [
        "tests/test_layers.py", "docs/index.md"]
    assert not list(path_tokens("and/or https://x.org/a.py <run>/summary.json evalui/*.py /etc/x.py"))
    assert not path_exists("tests/test_layers.py", here)
    assert path_exists("tests/lint/test_layers.py", here)
    assert path_exists("core/registry.py", here)  # relative to the package
    assert TIME.search("one joined query took 2.6 s on 3,641 samples")
    assert TIME.search("the import costs about 8 s of CPU")
    assert not TIME.search("a 5 s deadline, checked every 2 s")


@pytest.mark.parametrize("module", modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_docstring_paths_exist_and_hold_no_timings(module):
    rel = module.relative_to(ROOT).as_posix()
    if rel in SKIPPED:
        pytest.skip("another session is editing this file (see SKIPPED)")
    found = problems(module)
    assert not found, "\n".join(found)


def test_skipped_files_still_need_skipping():
    """An entry in SKIPPED whose file now passes, or is gone, should leave the list."""
    clean = [rel for rel in sorted(SKIPPED) if not (ROOT / rel).exists() or not problems(ROOT / rel)]
    assert not clean, f"these pass now; remove them from SKIPPED: {clean}"
