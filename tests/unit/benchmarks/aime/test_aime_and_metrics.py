import math

import pytest

from evalui.benchmarks.aime.scoring import (
    aime_answers_equal,
    extract_aime_answer,
    last_boxed,
    to_aime_integer,
)
from evalui.stats.metrics import (
    accuracy,
    accuracy_by,
    judge_summary,
    level_drop_rates,
    percentile,
    weighted_accuracy,
    wilson,
    win_rates,
)


@pytest.mark.parametrize(
    "response, expected",
    [
        (r"so the answer is \boxed{025}", 25),
        (r"\boxed{25.0}", 25),
        (r"\boxed{\text{25}}", 25),
        (r"first \boxed{12} then corrected \boxed{13}", 13),
        (r"\boxed{\frac{50}{2}}", 25),
        (r"\boxed{\frac{7}{2}}", None),
        (r"\boxed{1000}", None),
        (r"\boxed{-3}", None),
        ("The answer is 204.", 204),
        ("Therefore the answer is: 7", 7),
        ("We get 3 and then 118", 118),
        ("no digits here", None),
        (None, None),
    ],
)
def test_extract_aime_answer(response, expected):
    assert extract_aime_answer(response) == expected


def test_boxed_with_nested_braces():
    assert last_boxed(r"x \boxed{\frac{1}{2}} y") == r"\frac{1}{2}"
    assert last_boxed("nothing") is None


def test_aime_equality_is_integer_equality():
    assert aime_answers_equal("025", 25)
    assert aime_answers_equal("25.0", "25")
    assert not aime_answers_equal("25.5", 25)
    assert not aime_answers_equal("26", 25)
    assert to_aime_integer(True) is None
    assert to_aime_integer("1,000") is None
    assert to_aime_integer("999") == 999


def test_wilson_interval_known_values():
    p = wilson(8, 10)
    assert p.rate == 0.8
    assert p.low == pytest.approx(0.4902, abs=1e-4)
    assert p.high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0).total == 0
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_accuracy_groups_and_weights():
    per = accuracy_by([("a", True), ("a", False), ("b", True), ("b", True)])
    assert per["a"].rate == 0.5 and per["b"].rate == 1.0
    assert weighted_accuracy(per) == pytest.approx(0.75)
    assert weighted_accuracy(per, {"a": 3, "b": 1}) == pytest.approx(0.625)
    assert accuracy([True, False, False, False]).rate == 0.25


def test_level_drop_rates():
    per = accuracy_by([("1", True), ("1", True), ("2", True), ("2", False), ("3", False)])
    drops = level_drop_rates(per)
    assert drops["1->2"] == pytest.approx(0.5)
    assert drops["2->3"] == pytest.approx(1.0)


def test_percentile():
    assert percentile([3, 1, 2], 50) == 2
    assert percentile([1, 2, 3, 4], 90) == pytest.approx(3.7)
    assert percentile([], 50) is None


def test_judge_summary():
    rows = [
        {"correctness": 5, "clarity": 5, "difficulty_match": 4, "completeness": 5},
        {"correctness": 3, "clarity": 3, "difficulty_match": 3, "completeness": 3},
    ]
    summary = judge_summary(rows)
    assert summary["average"] == pytest.approx((4.75 + 3) / 2)
    assert summary["pass_rate"]["rate"] == 0.5
    assert summary["excellent_rate"]["rate"] == 0.5
    assert summary["dimensions"]["difficulty_match"] == pytest.approx(3.5)


def test_win_rates():
    rates = win_rates(["win", "win", "loss", "tie"])
    assert rates["win_rate"]["rate"] == 0.5
    assert rates["tie_rate"]["successes"] == 1
    assert math.isclose(sum(rates[f"{o}_rate"]["rate"] for o in ("win", "loss", "tie")), 1.0)
    with pytest.raises(ValueError):
        win_rates(["draw"])
