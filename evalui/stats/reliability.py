"""Reliability over repeats (epochs): does a sample pass every time, or only sometimes?

For a sample answered n times, c of them right:

- pass^k (tau-bench's "pass hat k", Yao et al. 2024): the chance that k answers drawn without
  replacement from the n are all right, C(c, k) / C(n, k); unbiased for p^k, the chance that k fresh
  tries all pass. pass@k (at least one of k right) is its mirror, 1 − C(n − c, k) / C(n, k).
- flip rate: the share of pairs of its answers that disagree, 2·c·(n − c) / (n·(n − 1)); unbiased
  for 2p(1 − p), the chance that two tries of the sample give different verdicts.
- flaky: it both passed and failed (0 < c < n).

Run figures average these over samples. The intra-class correlation between a sample's epochs
(one-way ANOVA estimator) is what `evalui plan --icc` needs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def _check(attempts: int, correct: int, k: int) -> None:
    if not 0 < k <= attempts or not 0 <= correct <= attempts:
        raise ValueError(f"need 0 < k <= attempts and 0 <= correct <= attempts, got k={k}, "
                         f"attempts={attempts}, correct={correct}")


def pass_hat_k(attempts: int, correct: int, k: int) -> float:
    """Probability that all of k answers drawn from the ``attempts`` are correct (pass^k)."""
    _check(attempts, correct, k)
    return math.comb(correct, k) / math.comb(attempts, k)


def flip_rate(attempts: int, correct: int) -> float | None:
    """Share of pairs of a sample's answers with different verdicts; None with fewer than two answers."""
    if attempts < 2:
        return None
    return 2 * correct * (attempts - correct) / (attempts * (attempts - 1))


def is_flaky(attempts: int, correct: int) -> bool:
    return 0 < correct < attempts


def epoch_icc(correct_counts: Sequence[int], epochs: int) -> float | None:
    """Intra-class correlation of pass/fail between a sample's epochs (one-way ANOVA estimator, equal
    cluster sizes); None when it cannot be estimated (one sample, one epoch, or no variation at all)."""
    n = len(correct_counts)
    if n < 2 or epochs < 2:
        return None
    rates = [c / epochs for c in correct_counts]
    mean = sum(rates) / n
    between = epochs * sum((r - mean) ** 2 for r in rates) / (n - 1)
    within = sum(epochs * r * (1 - r) for r in rates) / (n * (epochs - 1))
    denominator = between + (epochs - 1) * within
    return None if denominator == 0 else (between - within) / denominator


def reliability_figures(passed: Mapping[str, Sequence[bool]], epochs: int, ks: Sequence[int]) -> dict:
    """pass^k for each k, the mean flip rate, the flaky samples (id → flip rate) and the ICC, from each
    sample's verdicts over its ``epochs`` answers (a missing epoch counts as a failure)."""
    counts = {sample_id: sum(bool(v) for v in verdicts) for sample_id, verdicts in passed.items()}
    if not counts or epochs < 1:
        return {"pass_hat_k": {}, "flip_rate": None, "flaky": {}, "icc": None}
    n = len(counts)
    # One answer per sample gives no pair, so no sample has a flip rate: then the run has none either.
    flips = [rate for c in counts.values() if (rate := flip_rate(epochs, c)) is not None]
    return {
        "pass_hat_k": {str(k): sum(pass_hat_k(epochs, c, k) for c in counts.values()) / n for k in ks},
        "flip_rate": sum(flips) / n if flips else None,
        "flaky": {sample_id: flip_rate(epochs, c) for sample_id, c in counts.items() if is_flaky(epochs, c)},
        "icc": epoch_icc(list(counts.values()), epochs),
    }
