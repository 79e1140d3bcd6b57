"""How many samples (and epochs) a comparison of two accuracies needs: closed forms, and a
simulation that checks them.

Unpaired (two runs on different samples, or a run against a fixed published figure's sample):
the two-proportion sample size of Fleiss (1981), without continuity correction,

    n0 = (z_{1-α/2} √(2 p̄ q̄) + z_{1-β} √(p1 q1 + p2 q2))² / δ²   answers per run,

Paired (both runs on the same samples, compared by McNemar's test as `evalui compare` and the gate
do): Connor's (1987) discordance-based formula,

    n0 = (z_{1-α/2} √ψ + z_{1-β} √(ψ − δ²))² / δ²   pairs,

where δ = p2 − p1 and ψ = p10 + p01 is the share of discordant pairs. ψ is not known before the
runs; it follows from the correlation φ between the two runs' outcomes on one answer (p11 = p1 p2 +
φ √(p1 q1 p2 q2)), or is given directly.

Clusters and epochs: answers in a cluster of m (a sample's K epochs, or samples sharing a
conversation or scenario) count less; the design effect 1 + (m − 1)·ICC multiplies n0, and K
epochs divide the samples needed by K. For paired designs, the ICC is that of the paired differences
(assumed equal to the one given).

evalui.stats.power_simulation checks these by simulation (the tests hold them within 10 %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

ALPHA = 0.05
POWER = 0.80


def _normal_quantile(q: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(q)


@dataclass(frozen=True)
class Design:
    baseline: float  # accuracy of run A
    effect: float  # the difference to detect: run B's accuracy minus A's
    paired: bool = False
    epochs: int = 1
    cluster_size: int = 1  # samples per cluster (e.g. BFCL multi-turn entries per base entry)
    icc: float = 0.0  # correlation between two answers of one cluster
    correlation: float = 0.5  # paired: correlation (phi) between A's and B's outcome on one answer
    discordant: float | None = None  # paired: share of discordant pairs; overrides ``correlation``
    alpha: float = ALPHA
    power: float = POWER

    def __post_init__(self):
        if not 0 < self.baseline < 1:
            raise ValueError("the baseline accuracy must be between 0 and 1 (exclusive)")
        if self.effect == 0 or not 0 < self.baseline + self.effect < 1:
            raise ValueError("the effect must be non-zero and keep baseline + effect between 0 and 1 (exclusive)")
        if self.epochs < 1 or self.cluster_size < 1:
            raise ValueError("epochs and cluster size must be at least 1")
        if not 0 <= self.icc <= 1:
            raise ValueError("the ICC must be between 0 and 1")
        if not 0 < self.alpha < 1 or not 0 < self.power < 1:
            raise ValueError("alpha and power must be between 0 and 1 (exclusive)")
        if self.paired:
            self.cells()  # checks the correlation or discordance is possible for these accuracies

    @property
    def target(self) -> float:
        return self.baseline + self.effect

    @property
    def answers_per_cluster(self) -> int:
        return self.cluster_size * self.epochs

    @property
    def design_effect(self) -> float:
        return 1 + (self.answers_per_cluster - 1) * self.icc

    def cells(self) -> tuple[float, float, float, float]:
        """Paired: (both correct, A only, B only, both wrong) shares of the pairs."""
        p1, p2 = self.baseline, self.target
        if self.discordant is not None:
            psi = self.discordant
            if not abs(p2 - p1) <= psi <= min(1.0, p1 + p2, 2 - p1 - p2):
                raise ValueError(f"a discordant share of {psi:g} is impossible for accuracies {p1:g} and {p2:g} "
                                 f"(it must be between {abs(p2 - p1):g} and {min(1.0, p1 + p2, 2 - p1 - p2):g})")
            both = (p1 + p2 - psi) / 2
        else:
            both = p1 * p2 + self.correlation * math.sqrt(p1 * (1 - p1) * p2 * (1 - p2))
            low, high = max(0.0, p1 + p2 - 1), min(p1, p2)
            if not low - 1e-12 <= both <= high + 1e-12:
                spread = math.sqrt(p1 * (1 - p1) * p2 * (1 - p2))
                raise ValueError(f"a correlation of {self.correlation:g} is impossible for accuracies {p1:g} and {p2:g} "
                                 f"(it must be between {(low - p1 * p2) / spread:.3f} and {(high - p1 * p2) / spread:.3f})")
            both = min(max(both, low), high)
        return both, p1 - both, p2 - both, 1 - p1 - p2 + both


def independent_answers(design: Design) -> float:
    """n0: the answers (or pairs) per run an unclustered design needs."""
    z_alpha = _normal_quantile(1 - design.alpha / 2)
    z_beta = _normal_quantile(design.power)
    p1, p2, delta = design.baseline, design.target, design.effect
    if design.paired:
        _, a_only, b_only, _ = design.cells()
        psi = a_only + b_only
        return (z_alpha * math.sqrt(psi) + z_beta * math.sqrt(max(0.0, psi - delta * delta))) ** 2 / (delta * delta)
    mean = (p1 + p2) / 2
    return (z_alpha * math.sqrt(2 * mean * (1 - mean))
            + z_beta * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 / (delta * delta)


def samples_needed(design: Design) -> float:
    """Samples per run (unrounded): n0 × design effect ÷ epochs."""
    return independent_answers(design) * design.design_effect / design.epochs


def plan(design: Design) -> dict:
    """The figures `evalui plan` prints."""
    samples = math.ceil(samples_needed(design) - 1e-9)
    record: dict[str, Any] = {
        "baseline": design.baseline, "target": design.target, "effect": design.effect, "paired": design.paired,
        "alpha": design.alpha, "power": design.power, "epochs": design.epochs, "cluster_size": design.cluster_size,
        "icc": design.icc, "design_effect": design.design_effect,
        "independent_answers": independent_answers(design),
        "samples": samples, "answers": samples * design.epochs,
        "clusters": math.ceil(samples / design.cluster_size),
    }
    if design.paired:
        both, a_only, b_only, neither = design.cells()
        record.update(discordant=a_only + b_only, correlation=None if design.discordant is not None else design.correlation,
                      cells={"both_correct": both, "a_only": a_only, "b_only": b_only, "both_wrong": neither})
        record["formula"] = "Connor 1987 (McNemar, discordant pairs) × design effect ÷ epochs"
    else:
        record["formula"] = "Fleiss 1981 (two proportions) × design effect ÷ epochs"
    if design.epochs > 1 and design.icc > 0:
        # However many epochs, a sample's answers are worth at most 1/ICC independent ones.
        record["samples_with_unlimited_epochs"] = math.ceil(independent_answers(design) * design.cluster_size * design.icc)
    return record
