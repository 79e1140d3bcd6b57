"""evalui imports bfcl-eval's AST checker and leaderboard helper with a stand-in for its model
registry (the registry imports every provider SDK). The stand-in must hold what the real registry
holds, and those modules must read nothing from an entry that the stand-in lacks."""

import ast
import dataclasses
import functools
import importlib.util
import json
from pathlib import Path

import pytest

from evalui.benchmarks.bfcl import registry
from evalui.benchmarks.bfcl.scoring import official

MODULES_IMPORTED_WITH_THE_STAND_IN = (official.CHECKER_MODULE, "bfcl_eval.eval_checker.eval_runner_helper")


def _registry_reads(module_name: str) -> set[str]:
    """Every attribute the module reads from a registry entry: ``MODEL_CONFIG_MAPPING[...].x``, or
    ``config.x`` where ``config = MODEL_CONFIG_MAPPING[...]``."""
    tree = ast.parse(Path(importlib.util.find_spec(module_name).origin).read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    entry_names, reads = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "MODEL_CONFIG_MAPPING":
            parent = parents[node]
            if isinstance(parent, ast.Attribute):
                reads.add(parent.attr)
            elif isinstance(parent, ast.Assign) and all(isinstance(t, ast.Name) for t in parent.targets):
                entry_names |= {t.id for t in parent.targets}
            else:
                pytest.fail(f"{module_name} uses a registry entry as {ast.unparse(parent)}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in entry_names:
            reads.add(node.attr)
    return reads


def fresh_snapshot(monkeypatch) -> dict:
    """The snapshot as a new process reads it; the process's own is given back after the test."""
    kept = registry.registry_snapshot.__wrapped__
    monkeypatch.setattr(registry, "registry_snapshot", functools.cache(kept))
    return registry.registry_snapshot()


@pytest.mark.parametrize("module_name", MODULES_IMPORTED_WITH_THE_STAND_IN)
def test_the_modules_read_only_plain_fields_the_stand_in_holds(module_name):
    reads = _registry_reads(module_name)
    assert reads, f"{module_name} no longer reads the model registry: it needs no stand-in"
    plain = {f.name for f in dataclasses.fields(registry.RegistryEntry)} - {"model_handler"}
    assert reads <= plain, f"{module_name} reads {reads - plain} from an entry: the stand-in lacks it"


def test_the_snapshot_equals_bfcl_evals_registry_field_by_field(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    official.set_project_root()
    written = fresh_snapshot(monkeypatch)  # no cache file yet: read from the real registry, then kept
    assert list(tmp_path.glob("evalui/bfcl-model-registry-*.json"))
    read_back = fresh_snapshot(monkeypatch)  # from the file

    from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING

    assert set(read_back) == set(written) == set(MODEL_CONFIG_MAPPING)
    for name, config in MODEL_CONFIG_MAPPING.items():
        for field in dataclasses.fields(registry.RegistryEntry):
            mine, theirs = getattr(read_back[name], field.name), getattr(config, field.name)
            if field.name == "model_handler":
                theirs = f"{theirs.__module__}.{theirs.__qualname__}"
            assert mine == theirs, (name, field.name)
    # The two names the checker is given select the two behaviours.
    assert read_back[official._MODEL_UNDERSCORE_TO_DOT].underscore_to_dot is True
    assert read_back[official._MODEL_KEEPING_DOTS].underscore_to_dot is False


@pytest.mark.parametrize("damage", ['{"gpt-4o-2024-11-20-FC": {"model_name": 1', "[]", "{}",
                                    '{"gpt-4o-2024-11-20-FC": {"colour": "red"}}'])
def test_a_damaged_cache_file_is_read_again_from_the_real_registry(tmp_path, monkeypatch, damage):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    official.set_project_root()
    cache = registry._cache_file(registry._registry_source())
    cache.parent.mkdir(parents=True)
    cache.write_text(damage)
    entries = fresh_snapshot(monkeypatch)
    assert entries["gpt-4o-2024-11-20-FC"].underscore_to_dot is True and len(entries) > 100
    assert registry.RegistryEntry(**json.loads(cache.read_text())["gpt-4o-2024-11-20-FC"]).underscore_to_dot is True


def test_entries_added_to_the_stand_in_stay_in_it_and_go_when_removed():
    official.set_project_root()
    stand_in = registry.RegistryStandIn()
    known = set(stand_in)
    entry = registry.RegistryEntry(model_name="m", display_name="m", url="N/A", org="N/A", license="N/A",
                                   model_handler="")
    stand_in["evalui-temporary"] = entry
    assert stand_in["evalui-temporary"] is entry and "evalui-temporary" in stand_in and len(stand_in) == len(known) + 1
    assert stand_in.pop("evalui-temporary") is entry
    assert "evalui-temporary" not in stand_in and set(stand_in) == known


def test_the_checker_used_for_verdicts_is_bfcl_evals_own_module():
    checker = official.load_official().ast_checker
    module = registry.import_without_provider_sdks(official.CHECKER_MODULE)
    assert checker is module.ast_checker
    assert Path(module.__file__) == Path(importlib.util.find_spec(official.CHECKER_MODULE).origin)
