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
from dataclasses import asdict, dataclass, field
from typing import Any, cast

import numpy as np

from evalui.stats.metrics import Z_95, wilson

MIN_LABELS = 10
BOOTSTRAP_RESAMPLES = 2000

TOO_FEW_LABELS = "too_few_labels"
UNINFORMATIVE_JUDGE = "uninformative_judge"
NO_POSITIVE_LABELS = "no_positive_labels"
NO_NEGATIVE_LABELS = "no_negative_labels"
JUDGE_CONSTANT = "judge_constant"
JUDGE_IGNORED = "judge_ignored"
CLIPPED = "clipped"
NO_ITEMS = "no_items"

# What the functions take as values: a sequence of numbers, or an array of them.
Values = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class Estimate:
    """One figure with its 95 % interval. ``value`` is None when it cannot be given; ``reason`` says why."""

    method: str  # judge_only, human_only, rogan_gladen or ppi++
    value: float | None
    low: float | None
    high: float | None
    se: float | None
    n_labelled: int
    n_unlabelled: int
    interval: str = ""  # how the interval was made: wilson, normal, delta or bootstrap
    flags: tuple[str, ...] = ()
    reason: str | None = None
    details: dict = field(default_factory=dict)

    @property
    def width(self) -> float | None:
        return None if self.low is None or self.high is None else self.high - self.low

    def as_dict(self) -> dict:
        return {**asdict(self), "flags": list(self.flags), "width": self.width}


@dataclass(frozen=True)
class Figure:
    """A quantity three ways, side by side; ``estimate`` names the one to report."""

    naive: Estimate
    human_only: Estimate
    corrected: Estimate
    estimate: str  # corrected, human_only or naive

    @property
    def chosen(self) -> Estimate:
        return getattr(self, self.estimate)

    @property
    def flags(self) -> tuple[str, ...]:
        return self.corrected.flags

    def as_dict(self) -> dict:
        return {"estimate": self.estimate, "naive": self.naive.as_dict(), "human_only": self.human_only.as_dict(),
                "corrected": self.corrected.as_dict(), "flags": list(self.flags)}


# inputs ----------------------------------------------------------------------------------------
def as_values(values: Values, what: str) -> np.ndarray:
    array = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{what} must be finite numbers")
    return array


def as_binary(values: Values, what: str) -> np.ndarray:
    array = as_values(values, what)
    if not np.all((array == 0) | (array == 1)):
        raise ValueError(f"{what} must be 0 or 1 (fail or pass)")
    return array


def _paired(human: np.ndarray, judge: np.ndarray) -> None:
    if len(human) != len(judge):
        raise ValueError(f"human and judge must label the same items: {len(human)} and {len(judge)} values")


def _weights(weights: Values | None, n: int, what: str = "weights") -> np.ndarray:
    """Weights scaled to a mean of 1 (ones without weights): only their ratios mean anything."""
    if weights is None:
        return np.ones(n)
    array = as_values(weights, what)
    if len(array) != n:
        raise ValueError(f"{what} needs one value per item: {len(array)} for {n}")
    if n and (np.any(array <= 0)):
        raise ValueError(f"{what} must be positive")
    return array / array.mean() if n else array


def _normal(value: float, se: float, z: float, bounds: tuple[float, float] | None) -> tuple[float, float]:
    low, high = value - z * se, value + z * se
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return low, high


def _empty(method: str, n: int, nu: int, reason: str, flags: tuple[str, ...], details: dict | None = None,
           interval: str = "") -> Estimate:
    return Estimate(method, None, None, None, None, n, nu, interval, flags, reason, details or {})


# the naive and the human-only figures ----------------------------------------------------------
def judge_only(judge: Sequence[float], judge_unlabelled: Sequence[float], *, binary: bool, z: float = Z_95,
               bounds: tuple[float, float] | None = None) -> Estimate:
    """The judge's figure over every item: Wilson for a rate, the normal interval for a mean."""
    labelled, unlabelled = as_values(judge, "judge"), as_values(judge_unlabelled, "judge_unlabelled")
    everything = np.concatenate([labelled, unlabelled])
    n, nu, total = len(labelled), len(unlabelled), len(labelled) + len(unlabelled)
    if total == 0:
        return _empty("judge_only", n, nu, "no judged items", (NO_ITEMS,))
    if binary:
        everything = as_binary(everything, "judge")
        rate = wilson(int(everything.sum()), total, z)
        return Estimate("judge_only", rate.rate, rate.low, rate.high, math.sqrt(rate.rate * (1 - rate.rate) / total),
                        n, nu, "wilson")
    value = float(everything.mean())
    se = float(everything.std(ddof=1) / math.sqrt(total)) if total > 1 else 0.0
    return Estimate("judge_only", value, *_normal(value, se, z, bounds), se, n, nu, "normal")


def human_only(human: Sequence[float], *, binary: bool, weights: Values | None = None,
               n_unlabelled: int = 0, z: float = Z_95, bounds: tuple[float, float] | None = None) -> Estimate:
    """The labelled items alone. Unweighted: Wilson for a rate, the normal interval for a mean.
    Weighted: the weighted mean with its linearised variance, n/(n−1)·Σ ω²(y − ȳ)² (ω summing to 1),
    which is the usual s²/n without weights."""
    values = as_binary(human, "human") if binary else as_values(human, "human")
    n = len(values)
    if n == 0:
        return _empty("human_only", 0, n_unlabelled, "no labelled items", (NO_ITEMS,))
    if weights is None and binary:
        rate = wilson(int(values.sum()), n, z)
        return Estimate("human_only", rate.rate, rate.low, rate.high, math.sqrt(rate.rate * (1 - rate.rate) / n),
                        n, n_unlabelled, "wilson")
    omega = _weights(weights, n) / n
    value = float(omega @ values)
    se = math.sqrt(n / (n - 1) * float(omega ** 2 @ (values - value) ** 2)) if n > 1 else 0.0
    limits = (0.0, 1.0) if binary else bounds
    return Estimate("human_only", value, *_normal(value, se, z, limits), se, n, n_unlabelled, "normal")


# Rogan–Gladen ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class _JudgeRates:
    rate: float  # the judge's pass rate over every item
    sensitivity: float | None
    specificity: float | None
    positive_share: float  # the (weighted) share of labelled items the humans passed


def _judge_rates(human: np.ndarray, judge: np.ndarray, omega: np.ndarray, everything: np.ndarray) -> _JudgeRates:
    positive = float(omega @ human)
    # Decided on the counts: weighted sums of all-pass labels can miss 1 by a rounding error.
    sensitivity = float(omega @ (human * judge)) / positive if human.any() else None
    specificity = float(omega @ ((1 - human) * (1 - judge))) / float(omega @ (1 - human)) if not human.all() else None
    return _JudgeRates(float(everything.mean()), sensitivity, specificity, positive)


def _rogan_gladen_se(human: np.ndarray, judge: np.ndarray, omega: np.ndarray, everything: np.ndarray,
                     rates: _JudgeRates, theta: float) -> float:
    """The delta method through each item's influence on the estimate.

    θ = (p + q0 − 1)/J with J = q0 + q1 − 1, so dθ = dp/J + (1 − θ)·dq0/J − θ·dq1/J. Each item moves p
    by (judge − p)/N; a labelled one also moves q1 (if the humans passed it) by ω·(judge − q1)/π1, or
    q0 by ω·((1 − judge) − q0)/π0. The variance is the sum of the squared influences. Without weights
    this is Lee et al.'s [p(1−p)/N + (1−θ)²·q0(1−q0)/m0 + θ²·q1(1−q1)/m1] / J² plus the two
    covariances that arise because the labelled items are also counted in p:
    −2(1−θ)·q0(1−q0)/N and −2θ·q1(1−q1)/N, over J²; with labels a large part of the items, leaving
    them out overstates the variance.
    """
    q0, q1, pi1 = rates.specificity, rates.sensitivity, rates.positive_share
    assert q0 is not None and q1 is not None, "rogan_gladen returns before a correction without both rates"
    youden = q0 + q1 - 1
    influence = (everything - rates.rate) / (len(everything) * youden)
    labelled = omega * ((1 - theta) * (1 - human) * ((1 - judge) - q0) / (1 - pi1)
                        - theta * human * (judge - q1) / pi1) / youden
    influence[:len(human)] += labelled
    return math.sqrt(float(influence @ influence))


def _rogan_gladen_bootstrap(human: np.ndarray, judge: np.ndarray, omega: np.ndarray, unlabelled: np.ndarray,
                            resamples: int, seed: int | None) -> tuple[np.ndarray, int]:
    """θ over ``resamples`` resamples of both sets, each drawn with replacement at its own size.

    A labelled item is one of a few kinds (its weight, the human's verdict, the judge's), so a
    resample is a multinomial draw of the kinds' counts, and an unlabelled one a binomial draw of
    the judge's passes: the same distribution as drawing items, at the cost of the counts alone.
    Resamples without a human pass or fail, or with sensitivity + specificity ≤ 1, have no θ (NaN).
    """
    rng = np.random.default_rng(seed)
    kinds, counts = np.unique(np.column_stack([omega, human, judge]), axis=0, return_counts=True)
    drawn = rng.multinomial(len(human), counts / counts.sum(), size=resamples).astype(float)
    weight, h, j = kinds[:, 0], kinds[:, 1], kinds[:, 2]
    positives, negatives = drawn @ (weight * h), drawn @ (weight * (1 - h))
    with np.errstate(divide="ignore", invalid="ignore"):
        sensitivity = (drawn @ (weight * h * j)) / positives
        specificity = (drawn @ (weight * (1 - h) * (1 - j))) / negatives
        passes = drawn @ j + rng.binomial(len(unlabelled), float(unlabelled.mean()) if len(unlabelled) else 0.0,
                                          size=resamples)
        rate = passes / (len(human) + len(unlabelled))
        youden = sensitivity + specificity - 1
        theta = np.where(youden > 0, (rate + specificity - 1) / youden, np.nan)
    return theta, int(np.sum(~np.isfinite(theta)))


def _stratified_se(human: np.ndarray, labelled: list, unlabelled: list, theta: float) -> float:
    """The post-stratified rate's standard error, the items being a sample and the labels a sample
    of each stratum's items (two phases): θ(1 − θ)/N + Σ W_s²·(1/n_s − 1/N_s)·S_s², with S_s² the
    stratum's sample variance (¼, the largest, for a stratum with one label)."""
    sizes: dict = {}
    for s in labelled + unlabelled:
        sizes[s] = sizes.get(s, 0) + 1
    total, variance = len(labelled) + len(unlabelled), theta * (1 - theta) / (len(labelled) + len(unlabelled))
    for s, size in sizes.items():
        values = human[[i for i, t in enumerate(labelled) if t == s]]
        spread = float(np.var(values, ddof=1)) if len(values) > 1 else 0.25
        variance += (size / total) ** 2 * (1 / len(values) - 1 / size) * spread
    return math.sqrt(variance)


def _stratified_bootstrap(human: np.ndarray, labelled: list, unlabelled: list, resamples: int,
                          seed: int | None) -> np.ndarray:
    """The post-stratified rate over resamples of both phases: the strata's shares drawn from all
    items (multinomial), each stratum's passes from its labels (binomial)."""
    rng = np.random.default_rng(seed)
    strata = list(dict.fromkeys(labelled + unlabelled))
    sizes = np.array([(labelled + unlabelled).count(s) for s in strata], dtype=float)
    labels = np.array([labelled.count(s) for s in strata])
    rates = np.array([float(human[[i for i, t in enumerate(labelled) if t == s]].mean()) for s in strata])
    shares = rng.multinomial(int(sizes.sum()), sizes / sizes.sum(), size=resamples) / sizes.sum()
    return (shares * rng.binomial(labels, rates, size=(resamples, len(strata))) / labels).sum(axis=1)


def rogan_gladen(human: Sequence[float], judge: Sequence[float], judge_unlabelled: Sequence[float], *,
                 strata: Sequence[Hashable] | None = None, strata_unlabelled: Sequence[Hashable] | None = None,
                 interval: str = "delta", resamples: int = BOOTSTRAP_RESAMPLES, seed: int | None = None,
                 min_labels: int = MIN_LABELS, z: float = Z_95) -> Estimate:
    """The share of items that pass by the human verdict, from the judge's pass rate over every item
    corrected by its sensitivity and specificity on the labelled items. ``interval``: delta or
    bootstrap (a percentile interval over ``resamples`` resamples of both sets, seeded by ``seed``).
    Values and interval are clipped to [0, 1] (``clipped`` flags an estimate that was outside).

    ``strata`` and ``strata_unlabelled`` (one key per item) say the labels were taken stratum by
    stratum: sensitivity and specificity are then weighted by ``stratum_weights``. When every
    stratum holds one judge verdict (as judge score bands split at the pass mark do), the weighted
    estimate is exactly the post-stratified rate Σ W_s·(human pass rate in s), and its interval is
    that rate's two-phase one (``_stratified_se``, or a bootstrap of both phases); the linearised
    variance would ignore what the strata fix and be about twice too wide. Strata that mix verdicts
    keep the linearised variance, which is conservative then.
    """
    if interval not in ("delta", "bootstrap"):
        raise ValueError(f"interval must be delta or bootstrap, not {interval!r}")
    h, j = as_binary(human, "human"), as_binary(judge, "judge")
    _paired(h, j)
    unlabelled = as_binary(judge_unlabelled, "judge_unlabelled")
    n, nu = len(h), len(unlabelled)
    if n + nu == 0:
        return _empty("rogan_gladen", 0, 0, "no items", (NO_ITEMS,), interval=interval)
    everything = np.concatenate([j, unlabelled])
    by_stratum = None
    if strata is not None or strata_unlabelled is not None:
        by_stratum = (list(strata or []), list(strata_unlabelled or []))
        if len(by_stratum[0]) != n or len(by_stratum[1]) != nu:
            raise ValueError("strata need one key per labelled item and strata_unlabelled one per unlabelled item")
    omega = (stratum_weights(*by_stratum)[0] if by_stratum and n else np.ones(n)) / max(n, 1)
    omega = omega / omega.sum() if n else omega
    rates = _judge_rates(h, j, omega, everything)
    verdicts: dict = {}
    for key, verdict in zip(by_stratum[0] + by_stratum[1], everything.tolist()) if by_stratum else ():
        verdicts.setdefault(key, set()).add(verdict)
    # The strata when each holds one judge verdict (the post-stratified rate and its interval), else None.
    stratified = by_stratum if by_stratum is not None and all(len(v) == 1 for v in verdicts.values()) else None
    details = {"judge_rate": rates.rate, "sensitivity": rates.sensitivity, "specificity": rates.specificity,
               "human_passes": int(h.sum()), "human_fails": int(n - h.sum()),
               "strata": len(verdicts) if by_stratum else None,
               "variance": "stratified" if stratified is not None else "linearised"}
    flags, reasons = [], []
    # At least one label whatever min_labels says: without any, sensitivity and specificity are unknown.
    if n < max(min_labels, 1):
        flags.append(TOO_FEW_LABELS)
        reasons.append(f"{n} labelled items; the correction needs at least {max(min_labels, 1)}")
    if n and rates.sensitivity is None:
        flags.append(NO_POSITIVE_LABELS)
        reasons.append("no labelled item passes by the human verdict, so the judge's sensitivity is unknown")
    if n and rates.specificity is None:
        flags.append(NO_NEGATIVE_LABELS)
        reasons.append("no labelled item fails by the human verdict, so the judge's specificity is unknown")
    if rates.sensitivity is not None and rates.specificity is not None \
            and rates.sensitivity + rates.specificity <= 1:
        flags.append(UNINFORMATIVE_JUDGE)
        reasons.append(f"the judge's sensitivity + specificity is {rates.sensitivity + rates.specificity:.2f}, "
                       "not above 1: its verdicts say nothing about the human verdict, so they cannot be corrected")
    if reasons:
        return _empty("rogan_gladen", n, nu, "; ".join(reasons), tuple(flags), details, interval)
    sensitivity, specificity = rates.sensitivity, rates.specificity
    assert sensitivity is not None and specificity is not None  # else a reason above returned
    youden = sensitivity + specificity - 1
    theta = (rates.rate + specificity - 1) / youden
    if not 0 <= theta <= 1:
        flags.append(CLIPPED)
    value = min(1.0, max(0.0, theta))
    if interval == "delta":
        se = (_stratified_se(h, *stratified, value) if stratified is not None
              else _rogan_gladen_se(h, j, omega, everything, rates, theta))
        low, high = _normal(theta, se, z, (0.0, 1.0))
    else:
        if stratified is not None:
            thetas = _stratified_bootstrap(h, *stratified, resamples, seed)
            undefined = 0
        else:
            thetas, undefined = _rogan_gladen_bootstrap(h, j, omega, unlabelled, resamples, seed)
        defined = thetas[np.isfinite(thetas)]
        details.update(resamples=resamples, undefined_resamples=undefined, seed=seed)
        if len(defined) < 2:
            return _empty("rogan_gladen", n, nu, "no bootstrap resample had a usable judge", (UNINFORMATIVE_JUDGE,),
                          details, interval)
        tail = (1 - _coverage(z)) / 2
        low, high = (min(1.0, max(0.0, float(q))) for q in np.quantile(defined, [tail, 1 - tail]))
        se = float(defined.std(ddof=1))
    return Estimate("rogan_gladen", value, low, high, se, n, nu, interval, tuple(flags), None, details)


def _coverage(z: float) -> float:
    return math.erf(z / math.sqrt(2))


# PPI++ -----------------------------------------------------------------------------------------
def ppi_mean(human: Sequence[float], judge: Sequence[float], judge_unlabelled: Sequence[float], *,
             weights: Values | None = None, weights_unlabelled: Values | None = None,
             lam: float | None = None, min_labels: int = MIN_LABELS, z: float = Z_95,
             bounds: tuple[float, float] | None = None) -> Estimate:
    """The human mean by PPI++: θ = λ·mean(w_u·f_u) + mean(w·(y − λ·f)), the weights scaled to a mean
    of 1 in each set.

    Its variance is Var(w_u·λ·f_u)/N + Var(w·(y − λ·f))/n (population variances, as the authors'
    ``ppi_py`` computes them). ``lam`` None tunes λ to that variance's minimum,
    Cov(w·y, w·f) / ((1 + n/N)·Var(w·f over both sets)), the covariance and variances taken around the
    λ = 1 estimate (as ``ppi_py`` does, which matters with weights), then clipped to [0, 1]; a judge
    that never varies gives λ = 0, the human-only mean. ``bounds`` clips the interval (not the
    estimate) to the values' range.
    """
    y, f = as_values(human, "human"), as_values(judge, "judge")
    _paired(y, f)
    fu = as_values(judge_unlabelled, "judge_unlabelled")
    n, nu = len(y), len(fu)
    w, wu = _weights(weights, n), _weights(weights_unlabelled, nu, "weights_unlabelled")
    flags, reasons = [], []
    if n < max(min_labels, 2):
        flags.append(TOO_FEW_LABELS)
        reasons.append(f"{n} labelled items; the correction needs at least {max(min_labels, 2)}")
    if nu == 0:
        flags.append(NO_ITEMS)
        reasons.append("no unlabelled items: the human-only figure is the whole answer")
    if reasons:
        return _empty("ppi++", n, nu, "; ".join(reasons), tuple(flags), {"lambda": lam}, "normal")
    tuned = lam is None
    if lam is None:
        pilot = float((wu * fu).mean() + (w * (y - f)).mean())
        grads, grads_judge = w * (y - pilot), w * (f - pilot)
        spread = float(np.var(np.concatenate([grads_judge, wu * (fu - pilot)]), ddof=1))
        if np.ptp(np.concatenate([f, fu])) == 0 or spread <= 0:  # rounding leaves a constant's variance at ~1e-32
            lam = 0.0
            flags.append(JUDGE_CONSTANT)
        else:
            covariance = float(np.mean((grads - grads.mean()) * (grads_judge - grads_judge.mean())))
            lam = min(1.0, max(0.0, covariance / ((1 + n / nu) * spread)))
        if lam == 0.0 and JUDGE_CONSTANT not in flags:
            flags.append(JUDGE_IGNORED)
    value = float((wu * lam * fu).mean() + (w * (y - lam * f)).mean())
    se = math.sqrt(float(np.var(wu * lam * fu)) / nu + float(np.var(w * (y - lam * f))) / n)
    details = {"lambda": float(lam), "lambda_tuned": tuned, "weighted": weights is not None}
    return Estimate("ppi++", value, *_normal(value, se, z, bounds), se, n, nu, "normal", tuple(flags), None, details)


def ppi_variance(human: Sequence[float], judge: Sequence[float], judge_unlabelled: Sequence[float], lam: float,
                 more: int = 0) -> float | None:
    """PPI++'s variance at this λ if ``more`` of the unlabelled items were labelled too, the
    spreads kept as they are now: Var(y − λf)/(n + more) + λ²·Var(f)/(N − more)."""
    y, f, fu = as_values(human, "human"), as_values(judge, "judge"), as_values(judge_unlabelled, "judge_unlabelled")
    n, nu = len(y) + more, len(fu) - more
    if n < 1 or nu < 1 or len(y) < 1:
        return None
    return float(np.var(y - lam * f)) / n + lam * lam * float(np.var(np.concatenate([f, fu]))) / nu


# the figures side by side ----------------------------------------------------------------------
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


# strata, and which item to label next ----------------------------------------------------------
def merge_sparse_strata(labelled: Sequence[Hashable], unlabelled: Sequence[Hashable], *, min_labels: int = 2,
                        order: Sequence[Hashable] | None = None) -> dict:
    """{stratum: the stratum it is merged into}, so that every merged stratum holds ``min_labels``
    labelled items (or all labelled items there are, in one stratum). Strata are merged with a
    neighbour in ``order`` (default: sorted), the sparsest first, into whichever neighbour holds
    fewer labels, so merged strata stay as alike in judge score as the order makes them."""
    present = set(labelled) | set(unlabelled)
    # Without an order the strata must sort (scores, bands, names); mypy cannot know that of Hashable.
    sequence = [s for s in (order if order is not None else sorted(cast("set[Any]", present))) if s in present]
    missing = present - set(sequence)
    if missing:
        raise ValueError(f"strata {sorted(map(str, missing))} are not in the order given")
    groups = [[s] for s in sequence]
    counts = {s: 0 for s in sequence}
    for s in labelled:
        counts[s] += 1

    def labels(group):
        return sum(counts[s] for s in group)

    while len(groups) > 1:
        sparse = min(range(len(groups)), key=lambda i: labels(groups[i]))
        if labels(groups[sparse]) >= min_labels:
            break
        neighbours = [i for i in (sparse - 1, sparse + 1) if 0 <= i < len(groups)]
        other = min(neighbours, key=lambda i: labels(groups[i]))
        first, second = sorted((sparse, other))
        groups[first:second + 1] = [groups[first] + groups[second]]
    return {s: group[0] for group in groups for s in group}


def stratum_weights(labelled: Sequence[Hashable], unlabelled: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """(weights of the labelled items, weights of the unlabelled ones) that give each set the mix of
    strata all items have: a labelled item of stratum s weighs N_s/n_s, an unlabelled one
    N_s/(N_s − n_s). A stratum without a labelled item cannot be represented: merge it first
    (``merge_sparse_strata``)."""
    totals: dict = {}
    for s in list(labelled) + list(unlabelled):
        totals[s] = totals.get(s, 0) + 1
    counts: dict = {}
    for s in labelled:
        counts[s] = counts.get(s, 0) + 1
    empty = [s for s in totals if s not in counts]
    if empty:
        raise ValueError(f"strata without a labelled item: {sorted(map(str, empty))}")
    return (np.array([totals[s] / counts[s] for s in labelled], dtype=float),
            np.array([totals[s] / (totals[s] - counts[s]) for s in unlabelled], dtype=float))
