"""Which unlabelled items to label next, and what that would do to an interval: the plan behind
"review these next" (a stratum whose labels are few or spread gets the next ones).

The variance is that of the post-stratified estimate the corrected figures use
(``evalui.stats.calibration``); pure, like the rest of ``evalui.stats``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from evalui.stats.calibration import as_binary, as_values
from evalui.stats.metrics import Z_95


@dataclass(frozen=True)
class ReviewPlan:
    """Which unlabelled items to label next, best first, and what that would do to the interval.

    ``order``: indices into the unlabelled items. ``narrows_by``: how much each one, in turn,
    narrows the 95 % interval's half-width (None while a stratum has no label yet: the interval is
    not defined until it has). ``strata``: per stratum, its items, labels, spread and how much one
    more label there would lower the variance. The half-widths are those of the post-stratified
    estimate Σ W_s·mean_s, the items a sample and each stratum's labels a sample of its items:
    σ²/N + Σ W_s²·σ_s²·(1/n_s − 1/N_s) (a stratum fully labelled adds nothing).
    """

    order: tuple[int, ...]
    narrows_by: tuple[float | None, ...]
    strata: tuple[dict, ...]
    half_width_now: float | None
    half_width_after: float | None
    more: int

    def as_dict(self) -> dict:
        return {"order": list(self.order), "narrows_by": list(self.narrows_by), "strata": list(self.strata),
                "half_width_now": self.half_width_now, "half_width_after": self.half_width_after, "more": self.more}


def _stratum_spread(outcomes: list[float], binary: bool, pooled: float) -> float:
    """A stratum's variance: Laplace-smoothed p(1−p) for 0/1 outcomes (never 0 on a few labels, where
    an all-pass stratum is more likely luck than certainty); otherwise s² shrunk towards the pooled
    variance by one pseudo-observation."""
    n = len(outcomes)
    if binary:
        rate = (sum(outcomes) + 1) / (n + 2)
        return rate * (1 - rate)
    if n == 0:
        return pooled
    mean = sum(outcomes) / n
    return (sum((o - mean) ** 2 for o in outcomes) + pooled) / n


def _stratified_variance(items: dict, labels: dict, spreads: dict, base: float) -> float:
    """``base`` is the first phase's σ²/N, the same whichever items are labelled."""
    total = sum(items.values())
    variance = base
    for s, size in items.items():
        if labels[s] == 0:
            return math.inf
        variance += (size / total) ** 2 * spreads[s] * (1 / labels[s] - 1 / size)
    return variance


def review_plan(labelled_strata: Sequence[Hashable], labelled_outcomes: Sequence[float],
                unlabelled_strata: Sequence[Hashable], *, more: int = 10, seed: int = 0, binary: bool = True,
                z: float = Z_95) -> ReviewPlan:
    """Rank the unlabelled items by how much labelling each would narrow the interval.

    Items are grouped in strata (say, the judge's score band, or whether its dimensions disagree).
    One more label in stratum s lowers the stratified variance by W_s²·σ_s²·(1/n_s − 1/(n_s + 1)),
    so the next label goes where that is largest (first to a stratum with none), greedily for
    ``more`` labels. Within a stratum the order is random (seeded): the labelled items of a stratum
    must stay a random sample of it for the stratum's weight (``stratum_weights``) to correct the
    figures for having chosen the strata.
    """
    outcomes = as_values(labelled_outcomes, "labelled_outcomes")
    if len(outcomes) != len(labelled_strata):
        raise ValueError("one outcome per labelled item")
    if binary:
        as_binary(outcomes, "labelled_outcomes")
    pooled = float(np.var(outcomes, ddof=1)) if len(outcomes) > 1 else 1.0
    strata = list(dict.fromkeys([*labelled_strata, *unlabelled_strata]))
    members: dict[Hashable, list[float]] = {s: [] for s in strata}
    for s, o in zip(labelled_strata, outcomes.tolist()):
        members[s].append(o)
    rng = np.random.default_rng(seed)
    waiting: dict[Hashable, list[int]] = {s: [] for s in strata}
    for index in rng.permutation(len(unlabelled_strata)).tolist():
        waiting[unlabelled_strata[index]].append(index)
    items = {s: len(members[s]) + len(waiting[s]) for s in strata}
    labels = {s: len(members[s]) for s in strata}
    spreads = {s: _stratum_spread(members[s], binary, pooled) for s in strata}
    total = sum(items.values())

    def gain(s) -> float:
        if not waiting[s]:
            return -1.0
        if labels[s] == 0:
            return math.inf
        return (items[s] / total) ** 2 * spreads[s] * (1 / labels[s] - 1 / (labels[s] + 1))

    table = [{"stratum": s, "items": items[s], "labelled": labels[s], "spread": spreads[s],
              "variance_drop": None if math.isinf(gain(s)) else max(gain(s), 0.0)} for s in strata]
    if binary:
        rate = sum(items[s] / total * (sum(members[s]) + 1) / (len(members[s]) + 2) for s in strata)
        base = rate * (1 - rate) / total
    else:
        base = pooled / total
    variance = _stratified_variance(items, labels, spreads, base)
    now = None if math.isinf(variance) else z * math.sqrt(variance)
    order, narrows = [], []
    for _ in range(max(0, more)):
        candidates = [s for s in strata if waiting[s]]
        if not candidates:
            break
        best = max(candidates, key=lambda s: (gain(s), items[s]))
        before = _stratified_variance(items, labels, spreads, base)
        order.append(waiting[best].pop(0))
        labels[best] += 1
        after = _stratified_variance(items, labels, spreads, base)
        narrows.append(None if math.isinf(before) or math.isinf(after)
                       else z * (math.sqrt(before) - math.sqrt(max(after, 0.0))))
    variance = _stratified_variance(items, labels, spreads, base)
    return ReviewPlan(tuple(order), tuple(narrows), tuple(table), now,
                      None if math.isinf(variance) else z * math.sqrt(max(variance, 0.0)), len(order))
