"""Repeats: each sample asked K times (epochs). Epoch 1 keeps the sample's id, epoch k > 1 is
stored as ``<id>#e<k>``, so a run with epochs pairs with a run without them on epoch 1.

Mean accuracy over epochs with its standard error clustered by sample (the K answers to one
sample are not independent), the unbiased pass@k estimator of Chen et al. (2021), and pass^k, flip
rates, flaky samples and the epochs' ICC (evalui.stats.reliability)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from evalui.stats.reliability import reliability_figures

_EPOCH = re.compile(r"#e(\d+)$")


def epoch_id(sample_id: str, epoch: int) -> str:
    return sample_id if epoch == 1 else f"{sample_id}#e{epoch}"


def split_epoch(sample_id: str) -> tuple[str, int]:
    """(the sample's own id, its epoch)."""
    found = _EPOCH.search(sample_id)
    return (sample_id[:found.start()], int(found.group(1))) if found else (sample_id, 1)


def pass_at_k(attempts: int, correct: int, k: int) -> float:
    """Probability that at least one of k answers drawn from the ``attempts`` is correct."""
    if not 0 < k <= attempts:
        raise ValueError(f"need 0 < k <= attempts, got k={k}, attempts={attempts}")
    if attempts - correct < k:
        return 1.0
    return 1.0 - math.comb(attempts - correct, k) / math.comb(attempts, k)


def epoch_figures(outcomes: Iterable[tuple[str, bool]], epochs: int) -> dict:
    """Figures over (sample_id, passed) with epoch-folded ids; a sample missing an epoch counts it as failed
    (errors never pass)."""
    passed: dict[str, list[bool]] = {}
    for sample_id, outcome in outcomes:
        base, _ = split_epoch(sample_id)
        passed.setdefault(base, []).append(bool(outcome))
    if not passed or epochs < 1:
        return {"epochs": epochs, "samples": 0, "mean_accuracy": None, "stderr": None, "pass_at_k": {},
                **reliability_figures({}, epochs, [])}
    means = [sum(v) / epochs for v in passed.values()]
    n = len(means)
    mean = sum(means) / n
    variance = sum((m - mean) ** 2 for m in means) / (n - 1) if n > 1 else 0.0
    ks = sorted({1, epochs})
    return {"epochs": epochs, "samples": n, "mean_accuracy": mean, "stderr": math.sqrt(variance / n),
            "pass_at_k": {str(k): sum(pass_at_k(epochs, sum(v), k) for v in passed.values()) / n for k in ks},
            **reliability_figures(passed, epochs, ks)}
