"""--epochs K: each sample asked K times, mean accuracy with its standard error and pass@k; the
estimator against a brute-force count over subsets, and a run through the CLI."""
from __future__ import annotations

import itertools
import statistics

import pytest

from evalui.stats.epochs import epoch_figures, epoch_id, pass_at_k, split_epoch


@pytest.mark.parametrize("attempts, correct, k", [(5, 0, 1), (5, 2, 1), (5, 2, 2), (5, 2, 4), (6, 5, 3), (4, 4, 4), (7, 3, 7)])
def test_pass_at_k_is_the_share_of_k_subsets_with_a_correct_answer(attempts, correct, k):
    answers = [True] * correct + [False] * (attempts - correct)
    subsets = list(itertools.combinations(range(attempts), k))
    expected = sum(any(answers[i] for i in subset) for subset in subsets) / len(subsets)
    assert pass_at_k(attempts, correct, k) == pytest.approx(expected)


def test_epoch_figures_mean_and_clustered_standard_error():
    outcomes = {"a": [True, True, False], "b": [False, False, False], "c": [True, True, True], "d": [True, False, False]}
    folded = [(epoch_id(s, k + 1), v) for s, values in outcomes.items() for k, v in enumerate(values)]
    assert split_epoch("a#e3") == ("a", 3) and split_epoch("a") == ("a", 1) and split_epoch("x#e2#e10") == ("x#e2", 10)
    figures = epoch_figures(folded, 3)
    per_sample = [sum(v) / 3 for v in outcomes.values()]
    assert figures["mean_accuracy"] == pytest.approx(statistics.mean(per_sample))
    assert figures["stderr"] == pytest.approx(statistics.stdev(per_sample) / 2)
    assert figures["pass_at_k"]["3"] == pytest.approx(3 / 4)  # every sample but b is right at least once
    assert figures["pass_at_k"]["1"] == pytest.approx(figures["mean_accuracy"])
