"""Every ``EVALUI_*`` variable is read through evalui.settings (issue 37): its ``read`` validates the
value by the field's type and bounds and falls back to the default with a warning, one way for all.

The walk below parses each module of the package (ast, not a grep, so a docstring or an error
message naming a variable is not a read) and reports each ``os.environ.get(N)``, ``os.environ[N]``,
``os.getenv(N)``, ``N in os.environ`` and ``positive_number(N, …)`` (the reader that came before)
whose ``N`` is an ``EVALUI_*`` string: a literal, or a constant (``X_ENV = "EVALUI_X"``) of the
module or imported from another module of the package. evalui/settings.py and the benchmarks'
settings.py modules are the readers; writes (the CLI setting EVALUI_DATABASE_URL for its children)
and scans of the whole environment (handing EVALUI_* to the call workers) are not reads. A name that
reaches ``os.environ`` through a parameter or a tuple of names is beyond a static walk.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalui"
PREFIX = "EVALUI_"
READERS = ("get", "getenv", "positive_number")

# Reads allowed outside the settings modules (the test fails on a line that no longer matches a
# read, so the list only shrinks): the sandbox's, since it runs under a system python with the
# standard library alone (tests/integration/sandbox/test_sandbox_unprivileged.py), where
# evalui.settings (pydantic) cannot be imported. evalui.settings still declares both variables.
ALLOWED: set[tuple[str, str]] = {
    ("evalui/sandbox/cgroup.py", "EVALUI_SANDBOX_CGROUP"),
    ("evalui/sandbox/local.py", "EVALUI_DATA_DIR"),
}


def _is_settings_module(relative: Path) -> bool:
    parts = relative.parts
    return parts == ("settings.py",) or (len(parts) == 3 and parts[0] == "benchmarks" and parts[2] == "settings.py")


def _module_name(package: Path, path: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _constants(tree: ast.Module) -> dict[str, str]:
    """The module's top-level ``NAME = "EVALUI_…"`` (or annotated) assignments."""
    found = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.startswith(PREFIX):
            found.update({target.id: value.value for target in targets if isinstance(target, ast.Name)})
    return found


def _is_environ(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name)
            and node.value.id == "os") or (isinstance(node, ast.Name) and node.id == "environ")


class _Reads(ast.NodeVisitor):
    def __init__(self, names: dict[str, str], modules: dict[str, dict[str, str]], aliases: dict[str, str]):
        self.names, self.modules, self.aliases = names, modules, aliases
        self.found: list[tuple[str, int]] = []

    def _variable(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
        elif isinstance(node, ast.Name):
            value = self.names.get(node.id, "")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self.aliases:
            value = self.modules.get(self.aliases[node.value.id], {}).get(node.attr, "")
        else:
            return None
        return value if value.startswith(PREFIX) else None

    def _add(self, node: ast.expr, line: int) -> None:
        if (variable := self._variable(node)) is not None:
            self.found.append((variable, line))

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if node.args and name in READERS:
            environ_get = name == "get" and isinstance(func, ast.Attribute) and _is_environ(func.value)
            getenv = name == "getenv"  # os.getenv or a bare getenv imported from os
            if environ_get or getenv or name == "positive_number":
                self._add(node.args[0], node.lineno)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Load) and _is_environ(node.value):  # os.environ[N] = … is a write
            self._add(node.slice, node.lineno)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)) and _is_environ(right):
                self._add(node.left, node.lineno)
        self.generic_visit(node)


def environment_reads(package: Path = PACKAGE) -> list[tuple[str, str, int]]:
    """(file relative to the package's parent, variable, line) for every EVALUI_* read outside the
    settings modules."""
    paths = sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    trees = {path: ast.parse(path.read_text(encoding="utf-8"), filename=str(path)) for path in paths}
    modules = {_module_name(package, path): _constants(tree) for path, tree in trees.items()}
    found = []
    for path, tree in trees.items():
        if _is_settings_module(path.relative_to(package)):
            continue
        names, aliases = dict(modules[_module_name(package, path)]), {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    local = alias.asname or alias.name
                    if f"{node.module}.{alias.name}" in modules:  # from evalui.store import search as s
                        aliases[local] = f"{node.module}.{alias.name}"
                    elif alias.name in modules.get(node.module, {}):  # from evalui.x import X_ENV
                        names[local] = modules[node.module][alias.name]
            elif isinstance(node, ast.Import):
                aliases.update({alias.asname: alias.name for alias in node.names if alias.asname and alias.name in modules})
        visitor = _Reads(names, modules, aliases)
        visitor.visit(tree)
        relative = path.relative_to(package.parent).as_posix()
        found += [(relative, variable, line) for variable, line in visitor.found]
    return found


@pytest.fixture(scope="module")
def found() -> list[tuple[str, str, int]]:
    return environment_reads()


def test_evalui_variables_are_read_only_through_the_settings(found):
    outside = sorted(read for read in found if read[:2] not in ALLOWED)
    assert not outside, ("EVALUI_* variables read from the environment directly (file, variable, line); "
                         f"read them with evalui.settings.read (a field of Settings or a benchmark's own): {outside}")


def test_the_allow_list_names_only_reads_that_are_still_there(found):
    stale = ALLOWED - {read[:2] for read in found}
    assert not stale, f"these reads are gone: take them off ALLOWED in {Path(__file__).name}: {sorted(stale)}"


def test_planted_reads_are_found_and_writes_and_the_settings_modules_are_not(tmp_path):
    package = tmp_path / "evalui"
    (package / "benchmarks" / "toy").mkdir(parents=True)
    (package / "names.py").write_text('SHARED_NAME = "EVALUI_IMPORTED"\nOTHER = "HF_TOKEN"\n')
    (package / "reads.py").write_text(
        "import os\n"
        "from evalui import names as named\n"
        "from evalui.names import SHARED_NAME, OTHER\n"
        "from evalui.config import positive_number\n"
        'OWN_ENV = "EVALUI_CONSTANT"\n'
        'a = os.environ.get("EVALUI_LITERAL", "")\n'
        "b = os.environ.get(OWN_ENV)\n"
        "c = os.getenv(SHARED_NAME)\n"
        'd = os.environ["EVALUI_SUBSCRIPT"]\n'
        'e = "EVALUI_MEMBER" in os.environ\n'
        'f = positive_number("EVALUI_OLD_READER", 1.0)\n'
        "g = os.environ.get(named.SHARED_NAME)\n"
        # Not reads: a write, a removal, a scan, another variable, a message naming one.
        'os.environ["EVALUI_WRITTEN"] = "x"\n'
        'os.environ.pop("EVALUI_POPPED", None)\n'
        'h = {k: v for k, v in os.environ.items() if k.startswith("EVALUI_")}\n'
        "i = os.environ.get(OTHER)\n"
        'raise ValueError(f"set {OWN_ENV} or EVALUI_IN_A_MESSAGE")\n')
    for settings in (package / "settings.py", package / "benchmarks" / "toy" / "settings.py"):
        settings.write_text('import os\nos.environ.get("EVALUI_IN_SETTINGS")\n')

    found = environment_reads(package)
    assert sorted((variable, line) for _, variable, line in found) == [
        ("EVALUI_CONSTANT", 7), ("EVALUI_IMPORTED", 8), ("EVALUI_IMPORTED", 12), ("EVALUI_LITERAL", 6),
        ("EVALUI_MEMBER", 10), ("EVALUI_OLD_READER", 11), ("EVALUI_SUBSCRIPT", 9)]
    assert {path for path, _, _ in found} == {"evalui/reads.py"}
