"""A mean corrected by prediction-powered inference (PPI++, Angelopoulos, Duchi and Zrnic, arXiv
2311.01453), with λ tuned to the variance's minimum. Pure, no I/O."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evalui.stats.estimate import (
    JUDGE_CONSTANT,
    JUDGE_IGNORED,
    MIN_LABELS,
    NO_ITEMS,
    TOO_FEW_LABELS,
    Estimate,
    Values,
    as_values,
    cause,
    empty,
    normal_interval,
    paired,
    scaled_weights,
)
from evalui.stats.metrics import Z_95


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
    paired(y, f)
    fu = as_values(judge_unlabelled, "judge_unlabelled")
    n, nu = len(y), len(fu)
    w, wu = scaled_weights(weights, n), scaled_weights(weights_unlabelled, nu, "weights_unlabelled")
    flags, causes = [], []
    if n < max(min_labels, 2):
        flags.append(TOO_FEW_LABELS)
        causes.append(cause("too_few_labels", n=n, needed=max(min_labels, 2)))
    if nu == 0:
        flags.append(NO_ITEMS)
        causes.append(cause("no_unlabelled_items"))
    if causes:
        return empty("ppi++", n, nu, causes, tuple(flags), {"lambda": lam}, "normal")
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
    return Estimate("ppi++", value, *normal_interval(value, se, z, bounds), se, n, nu, "normal", tuple(flags), None, details)


def ppi_variance(human: Sequence[float], judge: Sequence[float], judge_unlabelled: Sequence[float], lam: float,
                 more: int = 0) -> float | None:
    """PPI++'s variance at this λ if ``more`` of the unlabelled items were labelled too, the
    spreads kept as they are now: Var(y − λf)/(n + more) + λ²·Var(f)/(N − more)."""
    y, f, fu = as_values(human, "human"), as_values(judge, "judge"), as_values(judge_unlabelled, "judge_unlabelled")
    n, nu = len(y) + more, len(fu) - more
    if n < 1 or nu < 1 or len(y) < 1:
        return None
    return float(np.var(y - lam * f)) / n + lam * lam * float(np.var(np.concatenate([f, fu]))) / nu
