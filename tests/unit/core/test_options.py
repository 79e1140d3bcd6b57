"""Benchmarks' options are pydantic models (issue 37): the values typed in the CLI or a tab, and a
stored run's config, are read in the options' types and pass their validators; the checks made
before a run is registered return new options and never change the ones they were given."""

from __future__ import annotations

import pytest

from evalui.benchmarks.aime.options import GenerateOptions, check_judge
from evalui.benchmarks.bfcl.options import BfclOptions, check_options
from evalui.benchmarks.bfcl.scoring.leaderboard import LEADERBOARD_CATEGORIES
from evalui.benchmarks.gaia.spec import GaiaOptions
from evalui.core import registry
from evalui.core.benchmark import Options, option
from evalui.core.options import InvalidOptions

pytestmark = pytest.mark.unit


def test_typed_text_is_read_in_the_options_types():
    options = registry.get("bfcl").make_options({"categories": "simple_python, multiple", "limit": "3"})
    assert options.categories == ["simple_python", "multiple"]
    assert options.limit == 3
    gaia = registry.get("gaia").make_options({"limit": "0", "tools": "python,files", "tool_timeout": "2.5"})
    assert (gaia.limit, gaia.tools, gaia.tool_timeout) == (None, ["python", "files"], 2.5)


def test_validators_normalise_what_the_checks_used_to_change_in_place():
    options = BfclOptions(categories=["all"], limit=0, leaderboard_model="  gpt-4o-2024-11-20-FC ")
    assert options.categories == list(dict.fromkeys(LEADERBOARD_CATEGORIES))
    assert options.limit is None
    assert options.leaderboard_model == "gpt-4o-2024-11-20-FC"
    assert GenerateOptions(topics=[" ", " algebra "]).topics == ["algebra"]


@pytest.mark.parametrize(("make", "said"), [
    (lambda: BfclOptions(limit=-1), "limit: the limit must be 0 (all samples) or more"),
    (lambda: BfclOptions(mode="json"), "mode: 'json' is not one of fc, prompt"),
    (lambda: GaiaOptions(level="4"), "level: '4' is not one of 1, 2, 3"),
    (lambda: GaiaOptions(max_steps=0), "max_steps: max steps must be at least 1"),
    (lambda: GenerateOptions(n="many"), "n: Input should be a valid integer"),
])
def test_a_refused_value_is_one_line_naming_the_option(make, said):
    with pytest.raises(InvalidOptions) as refused:
        make()
    assert str(refused.value).startswith(said)
    assert "\n" not in str(refused.value)
    assert isinstance(refused.value, ValueError)  # the CLI and the tabs report ValueErrors as refusals


def test_unknown_options_are_refused_by_name():
    with pytest.raises(ValueError, match="bfcl has no option colour; its options are"):
        registry.get("bfcl").make_options({"colour": "red"})


def test_an_assignment_is_validated_as_a_given_value():
    options = GaiaOptions()
    with pytest.raises(ValueError):
        options.limit = "several"


def test_checks_return_new_options_and_leave_the_given_ones_alone(tmp_path, monkeypatch):
    options = BfclOptions(categories=["simple_python"], limit=2)
    checked, notes = check_options(options, None, None)
    assert checked == options and notes == {}
    generated = tmp_path / "aime_generated_x.json"
    generated.write_text('[{"problem_id": "p1", "problem": "1+1?", "answer": "2"}]', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    given = registry.get("aime-judge").make_options({"input": "aime_generated_x.json"})
    checked, _ = check_judge(given, None, None)
    assert checked.input == str(generated.resolve())
    assert given.input == "aime_generated_x.json"


def test_front_ends_read_how_each_option_is_asked_for():
    class Sums(Options):
        n: int = option(6, help="how many sums", flag="--count", required=True)
        seed: int = 0
        hidden: str = option("", shown=False)

    from evalui.core.benchmark import Benchmark

    spec = Benchmark(name="sums", title="Sums", options=Sums, samples=lambda o: [], task=lambda *a: None)
    asked = {f.name: f for f in spec.asked_fields()}
    assert list(asked) == ["n", "seed"]
    assert asked["n"].metadata["flag"] == "--count" and asked["n"].metadata["required"]
    assert asked["n"].default() == 6 and asked["seed"].metadata["help"] == ""
    assert spec.make_options({}).model_dump() == {"n": 6, "seed": 0, "hidden": ""}
