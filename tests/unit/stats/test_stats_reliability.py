"""Reliability over epochs: pass^k, pass@k and the flip rate against brute-force enumeration of
every subset or pair of a sample's answers; the flaky tag; the ICC between epochs; the figures a
run's summary carries and the report's lines."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from evalui.reports.markdown import epoch_lines, epoch_texts
from evalui.stats.epochs import epoch_figures, epoch_id, pass_at_k
from evalui.stats.power_simulation import beta_binomial_sums
from evalui.stats.reliability import epoch_icc, flip_rate, is_flaky, pass_hat_k, reliability_figures

pytestmark = pytest.mark.unit

CASES = [(n, c, k) for n in range(1, 7) for c in range(n + 1) for k in range(1, n + 1)]


@pytest.mark.parametrize("attempts, correct, k", CASES)
def test_pass_hat_k_and_pass_at_k_match_enumeration_of_every_k_subset(attempts, correct, k):
    answers = [True] * correct + [False] * (attempts - correct)
    subsets = list(itertools.combinations(answers, k))
    assert pass_hat_k(attempts, correct, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))
    assert pass_at_k(attempts, correct, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))


@pytest.mark.parametrize("attempts, correct", [(n, c) for n in range(2, 8) for c in range(n + 1)])
def test_flip_rate_is_the_share_of_disagreeing_pairs(attempts, correct):
    answers = [True] * correct + [False] * (attempts - correct)
    pairs = list(itertools.combinations(answers, 2))
    assert flip_rate(attempts, correct) == pytest.approx(sum(a != b for a, b in pairs) / len(pairs))
    assert is_flaky(attempts, correct) == (0 < correct < attempts) == (flip_rate(attempts, correct) > 0)


def test_pass_hat_k_is_unbiased_for_p_to_the_k():
    """Averaged over every way n answers can come out, C(c,k)/C(n,k) is exactly p^k."""
    from math import comb

    p, n, k = 0.7, 5, 3
    expected = sum(comb(n, c) * p ** c * (1 - p) ** (n - c) * pass_hat_k(n, c, k) for c in range(n + 1))
    assert expected == pytest.approx(p ** k)


def test_bad_arguments_are_refused_and_one_answer_has_no_flip_rate():
    with pytest.raises(ValueError):
        pass_hat_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_hat_k(3, 1, 0)
    assert flip_rate(1, 1) is None


def test_the_icc_between_epochs_recovers_the_simulated_one():
    sums = beta_binomial_sums(np.random.default_rng(5), 0.7, 0.5, 5, (4000,))
    assert epoch_icc(sums.tolist(), 5) == pytest.approx(0.5, abs=0.04)
    independent = np.random.default_rng(5).binomial(5, 0.7, size=4000)
    assert epoch_icc(independent.tolist(), 5) == pytest.approx(0.0, abs=0.03)
    assert epoch_icc([3, 3, 3], 3) is None and epoch_icc([2], 3) is None


def test_a_run_s_epoch_figures_carry_pass_hat_k_flip_rates_and_flaky_samples():
    outcomes = {"a": [True, True, False], "b": [False, False, False], "c": [True, True, True], "d": [True, False]}
    folded = [(epoch_id(s, k + 1), v) for s, values in outcomes.items() for k, v in enumerate(values)]
    figures = epoch_figures(folded, 3)  # d's third epoch is missing: it counts as a failure
    assert figures["pass_hat_k"] == pytest.approx({"1": (2 / 3 + 0 + 1 + 1 / 3) / 4, "3": 1 / 4})
    assert figures["pass_hat_k"]["1"] == pytest.approx(figures["pass_at_k"]["1"])
    assert figures["flaky"] == pytest.approx({"a": 2 / 3, "d": 2 / 3})
    assert figures["flip_rate"] == pytest.approx((2 / 3 + 0 + 0 + 2 / 3) / 4)
    assert figures["icc"] == pytest.approx(epoch_icc([2, 0, 3, 1], 3))
    mean, stderr, passes = epoch_texts(figures)
    assert passes == "pass@1 50.0% · pass@3 75.0% · pass^3 25.0%"
    text = "\n".join(epoch_lines({"epochs": figures}))
    assert "Flaky samples (both passed and failed): 2" in text and "pass^3 25.0%" in text
    assert reliability_figures({}, 3, [1, 3]) == {"pass_hat_k": {}, "flip_rate": None, "flaky": {}, "icc": None}
