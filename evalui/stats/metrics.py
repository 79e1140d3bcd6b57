"""Aggregate figures: accuracy with Wilson intervals, per-group breakdowns, judge and win-rate summaries."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

Z_95 = 1.959963984540054


@dataclass(frozen=True)
class Proportion:
    """k successes out of n, with a 95 % Wilson score interval."""

    successes: int
    total: int
    rate: float
    low: float
    high: float

    def as_dict(self) -> dict:
        return asdict(self)


def wilson(successes: int, total: int, z: float = Z_95) -> Proportion:
    if total < 0 or successes < 0 or successes > total:
        raise ValueError(f"need 0 <= successes <= total, got {successes}/{total}")
    if total == 0:
        return Proportion(0, 0, 0.0, 0.0, 0.0)
    rate = successes / total
    denominator = 1 + z * z / total
    centre = (rate + z * z / (2 * total)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total * total)) / denominator
    return Proportion(successes, total, rate, max(0.0, centre - half), min(1.0, centre + half))


def accuracy(verdicts: Iterable[bool]) -> Proportion:
    values = list(verdicts)
    return wilson(sum(1 for v in values if v), len(values))


def accuracy_by(groups: Iterable[tuple[str, bool]]) -> dict[str, Proportion]:
    """Accuracy per group key, keys in first-seen order."""
    counts: dict[str, list[int]] = {}
    for key, correct in groups:
        bucket = counts.setdefault(str(key), [0, 0])
        bucket[0] += bool(correct)
        bucket[1] += 1
    return {key: wilson(k, n) for key, (k, n) in counts.items()}


def weighted_accuracy(per_group: Mapping[str, Proportion], weights: Mapping[str, float] | None = None) -> float:
    """Sum of w_c * accuracy_c over groups; equal weights when none are given."""
    groups = [g for g, p in per_group.items() if p.total]
    if not groups:
        return 0.0
    if weights is None:
        weights = {g: 1.0 for g in groups}
    total_weight = sum(weights.get(g, 0.0) for g in groups)
    if total_weight <= 0:
        raise ValueError("weights must give a positive total over the groups present")
    return sum(weights.get(g, 0.0) * per_group[g].rate for g in groups) / total_weight


def level_drop_rates(per_level: Mapping[str, Proportion]) -> dict[str, float | None]:
    """Relative accuracy drop from each level to the next: (acc_i - acc_j) / acc_i.

    None where the lower level's accuracy is 0 (a drop from nothing is undefined).
    """
    levels = sorted((k for k, p in per_level.items() if p.total), key=_level_sort_key)
    drops: dict[str, float | None] = {}
    for lower, upper in zip(levels, levels[1:]):
        base = per_level[lower].rate
        drops[f"{lower}->{upper}"] = None if base == 0 else (base - per_level[upper].rate) / base
    return drops


def _level_sort_key(level: str):
    try:
        return (0, float(level), level)
    except ValueError:
        return (1, 0.0, level)


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in [0, 100]); None for no values."""
    data = sorted(values)
    if not data:
        return None
    position = (len(data) - 1) * q / 100
    lower = math.floor(position)
    upper = min(lower + 1, len(data) - 1)
    return data[lower] + (data[upper] - data[lower]) * (position - lower)


JUDGE_DIMENSIONS: tuple[str, ...] = ("correctness", "clarity", "difficulty_match", "completeness")
PASS_THRESHOLD = 3.5
EXCELLENT_THRESHOLD = 4.5


def judge_summary(score_sets: Iterable[Mapping[str, float]]) -> dict:
    """Average, pass rate (>= 3.5), excellent rate (>= 4.5) and per-dimension means."""
    rows = [dict(s) for s in score_sets]
    totals = [sum(r[d] for d in JUDGE_DIMENSIONS) / len(JUDGE_DIMENSIONS) for r in rows]
    n = len(totals)
    return {
        "count": n,
        "average": sum(totals) / n if n else 0.0,
        "pass_rate": wilson(sum(t >= PASS_THRESHOLD for t in totals), n).as_dict(),
        "excellent_rate": wilson(sum(t >= EXCELLENT_THRESHOLD for t in totals), n).as_dict(),
        "dimensions": {d: (sum(r[d] for r in rows) / n if n else 0.0) for d in JUDGE_DIMENSIONS},
        "score_distribution": dict(sorted(Counter(round(t * 2) / 2 for t in totals).items())),
    }


OUTCOMES = ("win", "loss", "tie")


def win_rates(outcomes: Iterable[str]) -> dict:
    """Win, loss and tie rates with Wilson intervals, from outcomes 'win' / 'loss' / 'tie'."""
    values = list(outcomes)
    unknown = sorted(set(values) - set(OUTCOMES))
    if unknown:
        raise ValueError(f"unknown outcomes {unknown}; expected {OUTCOMES}")
    counts = Counter(values)
    n = len(values)
    return {"total": n, **{f"{o}_rate": wilson(counts[o], n).as_dict() for o in OUTCOMES}}
