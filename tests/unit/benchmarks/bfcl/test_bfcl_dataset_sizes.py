"""The leaderboard's size of a category that was not run comes from a count kept per installation
(evalui.benchmarks.bfcl.dataset_sizes), not from loading the dataset in every process: the count
must be bfcl-eval's own, and bfcl-eval's helper must want nothing but that count from its loader."""

import ast
import importlib.util
from pathlib import Path

import pytest

from evalui.benchmarks.bfcl import dataset_sizes
from evalui.benchmarks.bfcl.scoring import official
from evalui.benchmarks.bfcl.scoring.leaderboard import LEADERBOARD_CATEGORIES, official_helper


@pytest.fixture()
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    official.set_project_root()
    dataset_sizes._kept.cache_clear()
    yield tmp_path / "evalui"
    dataset_sizes._kept.cache_clear()


def test_the_helper_takes_only_the_length_of_what_its_loader_returns():
    tree = ast.parse(Path(importlib.util.find_spec("bfcl_eval.eval_checker.eval_runner_helper").origin).read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    uses = [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "load_dataset_entry"]
    assert uses
    for name in uses:
        call = parents[name]
        outer = parents.get(call)
        assert isinstance(call, ast.Call) and call.func is name, ast.unparse(call)
        assert isinstance(outer, ast.Call) and isinstance(outer.func, ast.Name) and outer.func.id == "len", \
            ast.unparse(outer)


def test_kept_sizes_are_bfcl_evals_count_and_are_read_back_without_loading(own_cache, monkeypatch):
    from bfcl_eval import utils

    real = {c: len(utils.load_dataset_entry(c, include_prereq=False, include_language_specific_hint=False))
            for c in LEADERBOARD_CATEGORIES}
    assert {c: official_helper().get_category_score({}, c)["total_count"] for c in LEADERBOARD_CATEGORIES} == real
    assert len(list(own_cache.glob("bfcl-category-sizes-*.json"))) == 1

    dataset_sizes._kept.cache_clear()  # a new process: the counts come from the file

    def no_loading(*args, **kwargs):
        raise AssertionError("a kept size was loaded again")

    monkeypatch.setattr(utils, "load_dataset_entry", no_loading)
    assert {c: dataset_sizes.entry_count(c, False, False) for c in LEADERBOARD_CATEGORIES} == real


@pytest.mark.parametrize("damage", ['{"simple_python|0|0": 4', '{"simple_python|0|0": -1}', '{"simple_python|0|0": "4"}',
                                    "[4]"])
def test_a_damaged_file_is_counted_again(own_cache, damage):
    from bfcl_eval.utils import load_dataset_entry

    cache, _ = dataset_sizes._kept()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(damage)
    dataset_sizes._kept.cache_clear()
    size = len(load_dataset_entry("simple_python", include_prereq=False, include_language_specific_hint=False))
    assert dataset_sizes.entry_count("simple_python", False, False) == size
    assert f'"simple_python|0|0": {size}' in cache.read_text()
