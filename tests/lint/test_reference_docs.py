"""The generated reference misses nothing (issue 40): every CLI flag, every ``EVALUI_*`` variable the
package reads, every field of the record schemas and every named endpoint of the app has its entry.

The pages are made by docs/hooks/reference.py, the hook `mkdocs build` runs (tests/lint/test_docs_build.py
builds the site with it). Each check here walks its source on its own (the argparse tree, a grep
of the package, the schema files, a second build of the app as tests/integration builds it) and
looks for every name in the section of the page where it belongs. The planted checks at the end
show that a name without an entry is reported, so these tests can fail.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from pathlib import Path

import pytest

from evalui.cli import build_parser
from evalui.settings import Settings, env_name, variables

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalui"
HOOK = ROOT / "docs" / "hooks" / "reference.py"
# A variable's name; one ending in "_" is a family named in prose (EVALUI_MAX_* values).
ENV_NAME = re.compile(r"\bEVALUI_[A-Z0-9_]+\b")
# A read through evalui.settings names the field: read("lease_s"), bfcl_settings.read("serpapi_url").
SETTING_READ = re.compile(r"\b(?:read|read_list|parse)\(\s*\"([a-z0-9_]+)\"")


def _load_hook():
    spec = importlib.util.spec_from_file_location("evalui_docs_reference_hook", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _load_hook()


# --- What each source has --------------------------------------------------------------------


def env_names_in_source(package: Path = PACKAGE) -> set[str]:
    """Every EVALUI_* name in the package's code (a grep, as `grep -rn EVALUI_ evalui` does), and the
    variable of every field read through evalui.settings."""
    names: set[str] = set()
    for path in package.rglob("*.py"):
        if "__pycache__" not in path.parts:
            source = path.read_text(encoding="utf-8")
            names |= {n for n in ENV_NAME.findall(source) if not n.endswith("_")}
            names |= {env_name(field) for field in SETTING_READ.findall(source)}
    return names


def cli_entries(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("evalui",)):
    """(command heading, what must be listed in its section) for every argument of every command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield " ".join(path), name  # listed among the parent's subcommands
                yield from cli_entries(sub, (*path, name))
        elif action.option_strings:
            for option in action.option_strings:
                yield " ".join(path), option
        else:
            yield " ".join(path), action.metavar if isinstance(action.metavar, str) else action.dest


def schema_entries(schema_dir: Path = ROOT / "schemas"):
    """(section heading, field) for every property of every schema and of its $defs."""
    for path in sorted(schema_dir.glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        title = schema["title"]
        for field in schema.get("properties", {}):
            yield title, field
        for name, sub in schema.get("$defs", {}).items():
            for field in sub.get("properties", {}):
                yield f"{title}.{name}", field


# --- Where the pages lack them ---------------------------------------------------------------


def _listed(name: str, body: str) -> bool:
    """``name`` stands on its own in ``body`` (--out is not --out-dir, run is not runs)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", body) is not None


def missing_entries(entries, page: str) -> list[str]:
    sections = reference.sections(page)
    return [f"{heading}: {name}" for heading, name in entries
            if heading not in sections or not _listed(name, sections[heading])]


def missing_settings(names, page: str) -> list[str]:
    return sorted(name for name in names if f"`{name}`" not in page)


def settings_drift(declared: set[str], used: set[str]) -> tuple[list[str], list[str]]:
    """(read by the code but not declared, declared but read nowhere)."""
    return sorted(used - declared), sorted(declared - used)


def endpoint_drift(named: set[str], page: str) -> tuple[list[str], list[str]]:
    """(the app's endpoints without a section, sections of endpoints the app does not have)."""
    documented = {heading for heading in reference.sections(page) if heading.startswith("/")}
    return sorted(named - documented), sorted(documented - named)


# --- Fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pages():
    """The pages exactly as the docs build writes them."""
    return reference.generate()


@pytest.fixture(scope="module")
def app_endpoints(tmp_path_factory):
    """The named endpoints of the app, built as tests/integration/viewer/test_viewer_endpoints.py builds it."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path_factory.mktemp("reference-app") / "data"))
        from evalui.store.run_store import RunStore
        from evalui.ui import build_demo

        store = RunStore()
        try:
            info = build_demo(store).get_api_info()
        finally:
            store.close()
    return set(info["named_endpoints"])


# --- The checks ------------------------------------------------------------------------------


def declared_variables() -> list[str]:
    """Every variable the generic settings and the benchmarks' own declare (a name twice is listed twice)."""
    return [env_name(name) for model in reference.settings_models() for name in model.model_fields]


def test_settings_declares_exactly_the_variables_the_code_reads():
    declared = declared_variables()
    assert len(declared) > len(variables()), "the benchmarks' own settings were not found"
    twice = sorted({name for name in declared if declared.count(name) > 1})
    assert not twice, f"declared in more than one settings model: {twice}"
    missing, stale = settings_drift(set(declared), env_names_in_source())
    assert not missing, f"read by evalui but declared in no settings model (evalui/settings.py, a benchmark's settings.py): {missing}"
    assert not stale, f"declared in a settings model but read nowhere in evalui: {stale}"
    assert all(field.description for model in reference.settings_models() for field in model.model_fields.values())
    assert Settings in reference.settings_models()


def test_every_cli_flag_and_command_has_an_entry(pages):
    entries = list(cli_entries(build_parser()))
    assert len(entries) > 100  # the walk found the tree
    assert not missing_entries(entries, pages[reference.CLI_PAGE])


def test_every_evalui_variable_has_an_entry(pages):
    names = env_names_in_source()
    assert "EVALUI_DATA_DIR" in names and len(names) > 30
    assert not missing_settings(names, pages[reference.CONFIG_PAGE])


def test_every_record_field_has_an_entry(pages):
    entries = list(schema_entries())
    assert ("SampleRecord", "trajectory") in entries and ("RunSummary.Cost", "usd") in entries
    assert not missing_entries(entries, pages[reference.RECORD_PAGE])


def test_the_api_page_lists_exactly_the_apps_named_endpoints(pages, app_endpoints):
    assert {"/viewer_samples", "/runs_compare_pair", "/bfcl_start", "/verify_next"} <= app_endpoints
    undocumented, unknown = endpoint_drift(app_endpoints, pages[reference.API_PAGE])
    assert not undocumented, f"named endpoints of the app without an entry in the API reference: {undocumented}"
    assert not unknown, f"entries of the API reference for endpoints the app does not have: {unknown}"


def test_the_reference_pages_are_in_the_nav_and_not_in_docs():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in reference.PAGES:
        assert re.search(rf":\s+{re.escape(page)}\s*$", nav, re.MULTILINE), f"{page} is not in mkdocs.yml's nav"
        assert not (ROOT / "docs" / page).exists(), f"docs/{page} is generated at build time; remove the file"


# --- The checks can fail ---------------------------------------------------------------------


def test_a_planted_flag_is_reported_until_the_page_is_made_from_its_parser():
    planted = build_parser()
    runs = next(a for a in planted._actions if isinstance(a, argparse._SubParsersAction)).choices["runs"]
    listing = next(a for a in runs._actions if isinstance(a, argparse._SubParsersAction)).choices["list"]
    listing.add_argument("--planted-flag", help="only in this test")
    entries = list(cli_entries(planted))

    stale_page = reference.cli_page(build_parser())
    assert missing_entries(entries, stale_page) == ["evalui runs list: --planted-flag"]
    fresh_page = reference.cli_page(planted)
    assert not missing_entries(entries, fresh_page)
    assert "only in this test" in reference.sections(fresh_page)["evalui runs list"]
    # A flag listed only under another command is still missing where it belongs.
    assert missing_entries([("evalui runs show", "--planted-flag")], fresh_page) == \
        ["evalui runs show: --planted-flag"]


def test_absent_names_are_reported(pages, tmp_path):
    assert missing_settings({"EVALUI_NOT_A_SETTING", "EVALUI_DATA_DIR"}, pages[reference.CONFIG_PAGE]) == \
        ["EVALUI_NOT_A_SETTING"]
    # A variable the code starts to read, and one it stops reading, both break the declaration.
    planted = tmp_path / "evalui"
    planted.mkdir()
    (planted / "new.py").write_text('os.environ.get("EVALUI_PLANTED_S")  # EVALUI_MAX_* is a family\n'
                                    'read("planted_field")\n')
    assert env_names_in_source(planted) == {"EVALUI_PLANTED_S", "EVALUI_PLANTED_FIELD"}
    missing, stale = settings_drift(set(variables()), env_names_in_source(planted))
    assert missing == ["EVALUI_PLANTED_FIELD", "EVALUI_PLANTED_S"] and "EVALUI_DATA_DIR" in stale

    assert missing_entries([("SampleRecord", "no_such_field")], pages[reference.RECORD_PAGE]) == \
        ["SampleRecord: no_such_field"]
    api = pages[reference.API_PAGE]
    undocumented, unknown = endpoint_drift({"/viewer_samples", "/planted_endpoint"}, api)
    assert undocumented == ["/planted_endpoint"] and "/runs_list" in unknown
