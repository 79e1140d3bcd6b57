"""A pass rate corrected by Rogan–Gladen: the judge's pass rate over every item, corrected by its
sensitivity and specificity on the labelled items, with a delta-method, two-phase or bootstrap
interval (see ``evalui.stats.calibration`` for where it is used). Pure, no I/O."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from evalui.stats.estimate import (
    BOOTSTRAP_RESAMPLES,
    CLIPPED,
    MIN_LABELS,
    NO_ITEMS,
    NO_NEGATIVE_LABELS,
    NO_POSITIVE_LABELS,
    TOO_FEW_LABELS,
    UNINFORMATIVE_JUDGE,
    Estimate,
    as_binary,
    cause,
    coverage,
    empty,
    normal_interval,
    paired,
)
from evalui.stats.metrics import Z_95
from evalui.stats.strata import stratum_weights


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
    paired(h, j)
    unlabelled = as_binary(judge_unlabelled, "judge_unlabelled")
    n, nu = len(h), len(unlabelled)
    if n + nu == 0:
        return empty("rogan_gladen", 0, 0, [cause("no_items")], (NO_ITEMS,), interval=interval)
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
    flags, causes = [], []
    # At least one label whatever min_labels says: without any, sensitivity and specificity are unknown.
    if n < max(min_labels, 1):
        flags.append(TOO_FEW_LABELS)
        causes.append(cause("too_few_labels", n=n, needed=max(min_labels, 1)))
    if n and rates.sensitivity is None:
        flags.append(NO_POSITIVE_LABELS)
        causes.append(cause("no_positive_labels"))
    if n and rates.specificity is None:
        flags.append(NO_NEGATIVE_LABELS)
        causes.append(cause("no_negative_labels"))
    if rates.sensitivity is not None and rates.specificity is not None \
            and rates.sensitivity + rates.specificity <= 1:
        flags.append(UNINFORMATIVE_JUDGE)
        causes.append(cause("uninformative_judge", sum=f"{rates.sensitivity + rates.specificity:.2f}"))
    if causes:
        return empty("rogan_gladen", n, nu, causes, tuple(flags), details, interval)
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
        low, high = normal_interval(theta, se, z, (0.0, 1.0))
    else:
        if stratified is not None:
            thetas = _stratified_bootstrap(h, *stratified, resamples, seed)
            undefined = 0
        else:
            thetas, undefined = _rogan_gladen_bootstrap(h, j, omega, unlabelled, resamples, seed)
        defined = thetas[np.isfinite(thetas)]
        details.update(resamples=resamples, undefined_resamples=undefined, seed=seed)
        if len(defined) < 2:
            return empty("rogan_gladen", n, nu, [cause("no_usable_resample")], (UNINFORMATIVE_JUDGE,),
                          details, interval)
        tail = (1 - coverage(z)) / 2
        low, high = (min(1.0, max(0.0, float(q))) for q in np.quantile(defined, [tail, 1 - tail]))
        se = float(defined.std(ddof=1))
    return Estimate("rogan_gladen", value, low, high, se, n, nu, interval, tuple(flags), None, details)
