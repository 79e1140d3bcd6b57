"""Paired statistics against independent computations on fixed tables: McNemar's exact p by
enumerating the binomial with exact fractions (Pascal's triangle), and Newcombe's interval against
the published worked example and a square-and-add built on scipy's own Wilson bounds."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from scipy.stats import binomtest

from evalui.stats.paired import (
    PairedCounts,
    compare_outcomes,
    flipped,
    is_regression,
    mcnemar_exact_p,
    newcombe_paired_interval,
)

# (both correct, correct → wrong, wrong → correct, both wrong)
TABLES = [(59, 6, 16, 80), (1, 1, 7, 12), (10, 0, 0, 10), (5, 3, 3, 5), (0, 9, 1, 0), (40, 2, 11, 7),
          (3, 0, 4, 0), (0, 0, 0, 6), (12, 25, 1, 2), (100, 0, 1, 0)]


def pascal_row(n: int) -> list[int]:
    row = [1]
    for _ in range(n):
        row = [1] + [row[i] + row[i + 1] for i in range(len(row) - 1)] + [1]
    return row


def enumerated_mcnemar(b: int, c: int) -> float:
    """Two-sided exact p: the total probability of every split of the flips no likelier than the observed one."""
    flips = b + c
    if flips == 0:
        return 1.0
    row = pascal_row(flips)
    observed = row[c]
    return float(Fraction(sum(count for count in row if count <= observed), 2 ** flips))


def square_and_add(a: int, b: int, c: int, d: int) -> tuple[float, float]:
    """Newcombe's method 10 written from the paper's formulas, with Wilson bounds from scipy."""
    n = a + b + c + d
    p_first, p_second = (a + c) / n, (a + b) / n  # B's accuracy, A's accuracy
    first = binomtest(a + c, n).proportion_ci(confidence_level=0.95, method="wilson")
    second = binomtest(a + b, n).proportion_ci(confidence_level=0.95, method="wilson")
    product = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    if product == 0:
        phi = 0.0
    elif cross > n / 2:
        phi = (cross - n / 2) / math.sqrt(product)
    elif cross >= 0:
        phi = 0.0
    else:
        phi = cross / math.sqrt(product)
    l1, u1, l2, u2 = first.low, first.high, second.low, second.high
    theta = p_first - p_second
    delta = math.sqrt((p_first - l1) ** 2 - 2 * phi * (p_first - l1) * (u2 - p_second) + (u2 - p_second) ** 2)
    epsilon = math.sqrt((u1 - p_first) ** 2 - 2 * phi * (u1 - p_first) * (p_second - l2) + (p_second - l2) ** 2)
    return theta - delta, theta + epsilon


@pytest.mark.parametrize("table", TABLES)
def test_mcnemar_p_matches_an_exact_enumeration(table):
    _, b, c, _ = table
    assert mcnemar_exact_p(b, c) == pytest.approx(enumerated_mcnemar(b, c), rel=1e-9, abs=1e-12)
    assert mcnemar_exact_p(c, b) == pytest.approx(mcnemar_exact_p(b, c), rel=1e-12)  # symmetric


@pytest.mark.parametrize("table", [t for t in TABLES if sum(t)])
def test_newcombe_interval_matches_square_and_add_on_scipy_wilson_bounds(table):
    low, high = newcombe_paired_interval(PairedCounts(*table))
    expected_low, expected_high = square_and_add(*table)
    assert low == pytest.approx(max(-1.0, expected_low), abs=1e-9)
    assert high == pytest.approx(min(1.0, expected_high), abs=1e-9)
    diff = (table[2] - table[1]) / sum(table)
    assert low <= diff <= high


def test_the_published_worked_example():
    """Cavo et al. (2012) in Fagerland, Lydersen and Laake's book: 59, 6, 16, 80; their Newcombe interval for
    first minus second is −0.1186 to −0.0046, and the exact conditional McNemar P is 0.0525."""
    outcomes_a, outcomes_b = {}, {}
    for index, (a, b) in enumerate([(True, True)] * 59 + [(True, False)] * 6 + [(False, True)] * 16
                                   + [(False, False)] * 80):
        outcomes_a[f"s{index}"], outcomes_b[f"s{index}"] = a, b
    comparison = compare_outcomes(outcomes_a, outcomes_b)
    assert (comparison.n, comparison.a_correct, comparison.b_correct) == (161, 65, 75)
    assert (comparison.flipped_to_wrong, comparison.flipped_to_correct) == (6, 16)
    assert comparison.diff == pytest.approx(10 / 161)
    assert [round(v, 4) for v in comparison.diff_ci] == [0.0046, 0.1186]
    assert round(comparison.mcnemar_p, 4) == 0.0525
    assert not comparison.significant and not is_regression(comparison.diff, comparison.mcnemar_p)


def test_pairing_by_id_leaves_out_samples_without_an_outcome_and_splits_by_group():
    a = {"x1": True, "x2": True, "x3": False, "y1": True, "y2": None, "only-a": True}
    b = {"x3": True, "x2": False, "x1": True, "y1": False, "y2": True, "only-b": False}
    groups = {"x1": "x", "x2": "x", "x3": "x", "y1": "y", "y2": "y"}
    comparison = compare_outcomes(a, b, groups)
    assert comparison.n == 4 and (comparison.a_correct, comparison.b_correct) == (3, 2)
    assert (comparison.flipped_to_wrong, comparison.flipped_to_correct) == (2, 1)
    assert comparison.by_group["x"]["n"] == 3 and comparison.by_group["x"]["diff"] == pytest.approx(0.0)
    assert comparison.by_group["y"]["n"] == 1 and comparison.by_group["y"]["flipped_to_wrong"] == 1
    assert flipped(a, b) == {"to_wrong": ["x2", "y1"], "to_correct": ["x3"]}
    assert compare_outcomes({"a": None}, {"a": True}).as_dict()["diff_ci"] is None


def test_a_clear_regression_is_flagged_and_a_clear_improvement_is_not():
    worse = compare_outcomes({f"s{i}": True for i in range(30)}, {f"s{i}": i < 15 for i in range(30)})
    assert worse.diff == pytest.approx(-0.5) and worse.mcnemar_p < 0.001 and is_regression(worse.diff, worse.mcnemar_p)
    better = compare_outcomes({f"s{i}": i < 15 for i in range(30)}, {f"s{i}": True for i in range(30)})
    assert better.significant and not is_regression(better.diff, better.mcnemar_p)
