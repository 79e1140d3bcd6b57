"""A judge's figures corrected by human labels on a subset of the same items. Pure functions, no I/O.

Every function follows prediction-powered inference's convention: ``human`` and ``judge`` hold the
labelled items (the same items, in the same order), ``judge_unlabelled`` the judge's values on the
items nobody labelled. All items together are the population the figure is about.

One quantity is given three ways (``Figure``), each with a 95 % interval:

- ``naive``: the judge's figure over every item. Its interval only carries sampling noise, not the
  judge's errors, so it is centred on the wrong value whenever the judge errs one way more than the other.
- ``human_only``: the labelled items alone. Unbiased, and wide.
- ``corrected``: the judge's figure corrected with the labels.
  - A pass rate (the judge and the humans each say pass or fail): Rogan–Gladen,
    (p + specificity − 1) / (sensitivity + specificity − 1), with p the judge's pass rate over every
    item and the judge's sensitivity and specificity estimated on the labelled items; the interval
    comes from the delta method or a bootstrap over both sets, and so carries the uncertainty of the
    sensitivity and specificity (Lee et al., arXiv 2511.21140).
  - A mean (a 1–5 score, or a pairwise outcome of 0, ½ or 1): PPI++ (Angelopoulos, Duchi and Zrnic,
    arXiv 2311.01453), λ·mean(judge, unlabelled) + mean(human − λ·judge, labelled), with λ tuned to
    the variance's minimum and the normal interval of its variance formula. λ = 0 is the
    human-only mean; λ = 1 is the original PPI.

The labelled items are taken to be a random sample of all items. When labels were chosen stratum by
stratum (``review_plan`` does so), pass each item's stratum: each labelled item then stands for its
stratum's share of all items (``stratum_weights``), and the figures stay unbiased.

A correction needs ``MIN_LABELS`` labelled items, and a judge whose sensitivity + specificity
exceeds 1 (otherwise its verdicts carry no information about the human verdict and the formula
divides by zero or flips sign). Below either, ``corrected`` has no value and says why.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

# The estimators live in modules of their own; this one composes them into figures, and is the one
# the review layer, the tabs and the benchmarks import, so their names are kept here as well.
from evalui.stats.estimate import BOOTSTRAP_RESAMPLES as BOOTSTRAP_RESAMPLES
from evalui.stats.estimate import CLIPPED as CLIPPED
from evalui.stats.estimate import JUDGE_CONSTANT as JUDGE_CONSTANT
from evalui.stats.estimate import JUDGE_IGNORED as JUDGE_IGNORED
from evalui.stats.estimate import MIN_LABELS as MIN_LABELS
from evalui.stats.estimate import NO_ITEMS as NO_ITEMS
from evalui.stats.estimate import NO_NEGATIVE_LABELS as NO_NEGATIVE_LABELS
from evalui.stats.estimate import NO_POSITIVE_LABELS as NO_POSITIVE_LABELS
from evalui.stats.estimate import TOO_FEW_LABELS as TOO_FEW_LABELS
from evalui.stats.estimate import UNINFORMATIVE_JUDGE as UNINFORMATIVE_JUDGE
from evalui.stats.estimate import Estimate as Estimate
from evalui.stats.estimate import Figure as Figure
from evalui.stats.estimate import Values as Values
from evalui.stats.estimate import as_binary as as_binary
from evalui.stats.estimate import as_values as as_values
from evalui.stats.estimate import cause, empty, normal_interval, scaled_weights
from evalui.stats.metrics import Z_95, wilson
from evalui.stats.ppi import ppi_mean as ppi_mean
from evalui.stats.ppi import ppi_variance as ppi_variance
from evalui.stats.rogan_gladen import rogan_gladen as rogan_gladen
from evalui.stats.strata import merge_sparse_strata as merge_sparse_strata
from evalui.stats.strata import stratum_weights as stratum_weights


def judge_only(judge: Sequence[float], judge_unlabelled: Sequence[float], *, binary: bool, z: float = Z_95,
               bounds: tuple[float, float] | None = None) -> Estimate:
    """The judge's figure over every item: Wilson for a rate, the normal interval for a mean."""
    labelled, unlabelled = as_values(judge, "judge"), as_values(judge_unlabelled, "judge_unlabelled")
    everything = np.concatenate([labelled, unlabelled])
    n, nu, total = len(labelled), len(unlabelled), len(labelled) + len(unlabelled)
    if total == 0:
        return empty("judge_only", n, nu, [cause("no_judged_items")], (NO_ITEMS,))
    if binary:
        everything = as_binary(everything, "judge")
        rate = wilson(int(everything.sum()), total, z)
        return Estimate("judge_only", rate.rate, rate.low, rate.high, math.sqrt(rate.rate * (1 - rate.rate) / total),
                        n, nu, "wilson")
    value = float(everything.mean())
    se = float(everything.std(ddof=1) / math.sqrt(total)) if total > 1 else 0.0
    return Estimate("judge_only", value, *normal_interval(value, se, z, bounds), se, n, nu, "normal")


def human_only(human: Sequence[float], *, binary: bool, weights: Values | None = None,
               n_unlabelled: int = 0, z: float = Z_95, bounds: tuple[float, float] | None = None) -> Estimate:
    """The labelled items alone. Unweighted: Wilson for a rate, the normal interval for a mean.
    Weighted: the weighted mean with its linearised variance, n/(n−1)·Σ ω²(y − ȳ)² (ω summing to 1),
    which is the usual s²/n without weights."""
    values = as_binary(human, "human") if binary else as_values(human, "human")
    n = len(values)
    if n == 0:
        return empty("human_only", 0, n_unlabelled, [cause("no_labelled_items")], (NO_ITEMS,))
    if weights is None and binary:
        rate = wilson(int(values.sum()), n, z)
        return Estimate("human_only", rate.rate, rate.low, rate.high, math.sqrt(rate.rate * (1 - rate.rate) / n),
                        n, n_unlabelled, "wilson")
    omega = scaled_weights(weights, n) / n
    value = float(omega @ values)
    se = math.sqrt(n / (n - 1) * float(omega ** 2 @ (values - value) ** 2)) if n > 1 else 0.0
    limits = (0.0, 1.0) if binary else bounds
    return Estimate("human_only", value, *normal_interval(value, se, z, limits), se, n, n_unlabelled, "normal")


def _choose(corrected: Estimate, human: Estimate) -> str:
    if corrected.value is not None:
        return "corrected"
    return "human_only" if human.value is not None else "naive"


def _strata_weights(strata, strata_unlabelled, n: int, nu: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    if strata is None and strata_unlabelled is None:
        return None, None
    strata, strata_unlabelled = list(strata or []), list(strata_unlabelled or [])
    if len(strata) != n or len(strata_unlabelled) != nu:
        raise ValueError("strata need one key per labelled item and strata_unlabelled one per unlabelled item")
    return stratum_weights(strata, strata_unlabelled) if n else (None, None)


def pass_rate(human: Sequence[float], judge: Sequence[float], judge_unlabelled: Sequence[float], *,
              strata: Sequence[Hashable] | None = None, strata_unlabelled: Sequence[Hashable] | None = None,
              interval: str = "delta", resamples: int = BOOTSTRAP_RESAMPLES, seed: int | None = None,
              min_labels: int = MIN_LABELS, z: float = Z_95) -> Figure:
    """A pass rate three ways: the judge's, the humans' on the labelled items, and Rogan–Gladen.

    With strata, the human-only rate is weighted to all items' mix of strata, as the labels were
    not drawn at random; when the strata split the judge's verdicts it is then the same number as
    the corrected rate (post-stratification already uses the judge), with the wider interval of a
    weighted mean that ignores the strata."""
    corrected = rogan_gladen(human, judge, judge_unlabelled, strata=strata, strata_unlabelled=strata_unlabelled,
                             interval=interval, resamples=resamples, seed=seed, min_labels=min_labels, z=z)
    weights, _ = _strata_weights(strata, strata_unlabelled, len(human), len(judge_unlabelled))
    naive = judge_only(judge, judge_unlabelled, binary=True, z=z)
    human_figure = human_only(human, binary=True, weights=weights, n_unlabelled=len(judge_unlabelled), z=z)
    return Figure(naive, human_figure, corrected, _choose(corrected, human_figure))


def mean_score(human: Sequence[float], judge: Sequence[float], judge_unlabelled: Sequence[float], *,
               strata: Sequence[Hashable] | None = None, strata_unlabelled: Sequence[Hashable] | None = None,
               min_labels: int = MIN_LABELS, bounds: tuple[float, float] | None = None, z: float = Z_95) -> Figure:
    """A mean (a score, or a share with ties as halves) three ways: the judge's, the humans' on the
    labelled items, and PPI++. With strata, both sets are weighted to all items' mix of strata."""
    weights, weights_unlabelled = _strata_weights(strata, strata_unlabelled, len(human), len(judge_unlabelled))
    corrected = ppi_mean(human, judge, judge_unlabelled, weights=weights, weights_unlabelled=weights_unlabelled,
                         min_labels=min_labels, z=z, bounds=bounds)
    naive = judge_only(judge, judge_unlabelled, binary=False, z=z, bounds=bounds)
    human_figure = human_only(human, binary=False, weights=weights, n_unlabelled=len(judge_unlabelled), z=z,
                              bounds=bounds)
    return Figure(naive, human_figure, corrected, _choose(corrected, human_figure))


PAIRWISE_VALUES = (0.0, 0.5, 1.0)


def win_rate(human: Sequence[float], judge: Sequence[float], judge_unlabelled: Sequence[float], *,
             strata: Sequence[Hashable] | None = None, strata_unlabelled: Sequence[Hashable] | None = None,
             min_labels: int = MIN_LABELS, z: float = Z_95) -> Figure:
    """The share of pairwise comparisons won, each outcome 1 (won), 0 (lost) or ½ (a tie counted
    half), three ways; the correction is PPI++ on the outcomes."""
    for what, values in (("human", human), ("judge", judge), ("judge_unlabelled", judge_unlabelled)):
        if not np.all(np.isin(as_values(values, what), PAIRWISE_VALUES)):
            raise ValueError(f"{what} outcomes must be 0, 0.5 or 1")
    return mean_score(human, judge, judge_unlabelled, strata=strata, strata_unlabelled=strata_unlabelled,
                      min_labels=min_labels, bounds=(0.0, 1.0), z=z)
