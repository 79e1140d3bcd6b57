"""Multi-turn calls that pass the name checks but would take minutes: bounded before they run, and
run in a worker process whose deadlines stop them, so neither a run nor the server waits on them."""
from __future__ import annotations

import json

import pytest

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.scoring.safe_calls import (
    UnsafeExpression,
    check_call_arguments,
)

SLOW_ROUND = {"round_number": json.dumps({"number": 1, "decimal_places": -10**7})}


@pytest.mark.parametrize("arguments", [
    {"number": 1, "decimal_places": -10**7},
    {"value": 10, "base": 2, "precision": "100000"},
    {"value": 10, "base": 2, "precision": 30000.0},
    {"value": 10, "base": 2, "precision": " 5000 "},
    {"base": 2**4095, "exponent": 4096},
    {"numbers": [1, 2, 10**16]},
    {"a": -1e300, "b": 1},
])
def test_numeric_arguments_beyond_their_bounds_are_refused(arguments):
    with pytest.raises(UnsafeExpression, match="beyond the limit"):
        check_call_arguments(arguments)


def test_every_argument_of_the_real_gold_calls_is_within_bounds():
    import ast

    checked = 0
    for category in ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"):
        for entry in load_category(category):
            for turn in entry.possible_answer:
                for call in turn:
                    node = ast.parse(call, mode="eval").body
                    check_call_arguments({k.arg: ast.literal_eval(k.value) for k in node.keywords})
                    checked += 1
    assert checked > 3000


@pytest.mark.parametrize("precision", [
    " " * 500 + "50000",  # the audit's call: padding once let a string skip the bound
    "\t\n" * 300 + "50000" + "\u3000" * 300,  # int() strips any whitespace, so the bound must too
    "0" * 500 + "50000",  # leading zeros: a small-looking string of a large number
    "0" * 500 + "5",  # no real size is written in hundreds of characters
])
def test_a_numeric_string_of_any_length_is_bounded(precision):
    with pytest.raises(UnsafeExpression, match="beyond the limit"):
        check_call_arguments({"value": 10, "base": 2, "precision": precision})
