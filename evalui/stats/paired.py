"""Paired comparison of two runs on the same samples: is run B really better (or worse) than run A?

Samples are paired by id, so each sample is its own control. The difference is B's accuracy minus
A's over the paired samples, with a 95 % interval by Newcombe's square-and-add method for paired
proportions (Newcombe 1998, method 10: Wilson score intervals for each run's accuracy, combined
with the correlation between the two runs' outcomes). The test is the exact two-sided McNemar
test: under "no difference", each flipped sample is equally likely to flip either way, so the
flips follow Binomial(flips, 1/2).

Pure functions: outcomes in, figures out. An outcome is True (correct), False (wrong, or an
error: errors never count as passes), or None (no outcome to compare: not run, or unscored).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

from evalui.stats.metrics import Z_95, wilson

INTERVAL_METHOD = "newcombe-paired-wilson (Newcombe 1998, method 10)"
TEST_METHOD = "exact two-sided McNemar (binomial on the flipped samples, p = 1/2)"
SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class PairedCounts:
    """The paired 2×2 table: how A and B did on each sample both runs have an outcome for."""

    both_correct: int = 0
    flipped_to_wrong: int = 0  # correct in A, wrong in B
    flipped_to_correct: int = 0  # wrong in A, correct in B
    both_wrong: int = 0

    @property
    def n(self) -> int:
        return self.both_correct + self.flipped_to_wrong + self.flipped_to_correct + self.both_wrong

    @property
    def a_correct(self) -> int:
        return self.both_correct + self.flipped_to_wrong

    @property
    def b_correct(self) -> int:
        return self.both_correct + self.flipped_to_correct


@dataclass(frozen=True)
class PairedComparison:
    n: int
    a_correct: int
    b_correct: int
    a_accuracy: float | None
    b_accuracy: float | None
    diff: float | None  # B's accuracy minus A's, over the paired samples
    diff_ci: tuple[float, float] | None
    flipped_to_wrong: int
    flipped_to_correct: int
    both_correct: int
    both_wrong: int
    mcnemar_p: float | None
    significant: bool  # p < 0.05
    interval_method: str = INTERVAL_METHOD
    test_method: str = TEST_METHOD
    by_group: dict[str, dict] = field(default_factory=dict)

    def as_dict(self) -> dict:
        record = asdict(self)
        record["diff_ci"] = list(self.diff_ci) if self.diff_ci else None
        return record


def mcnemar_exact_p(flipped_to_wrong: int, flipped_to_correct: int) -> float:
    """Exact two-sided McNemar p-value: a binomial test of one flip count among all flips at p = 1/2.

    No flips at all is no evidence of a difference: p = 1."""
    if flipped_to_wrong < 0 or flipped_to_correct < 0:
        raise ValueError("flip counts cannot be negative")
    flips = flipped_to_wrong + flipped_to_correct
    if flips == 0:
        return 1.0
    from scipy.stats import binomtest  # scipy's import takes a moment; only comparisons pay for it

    return float(binomtest(flipped_to_correct, flips, 0.5, alternative="two-sided").pvalue)


def _correlation(counts: PairedCounts) -> float:
    """Newcombe's estimate of the correlation between the two runs' outcomes. A small positive
    association (ad − bc ≤ n/2) is treated as none, and a larger one is shrunk by n/2."""
    a, b, c, d = counts.both_correct, counts.flipped_to_wrong, counts.flipped_to_correct, counts.both_wrong
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        return 0.0
    association: float = a * d - b * c
    if association > counts.n / 2:
        association -= counts.n / 2
    elif association >= 0:
        association = 0
    return association / math.sqrt(margins)


def newcombe_paired_interval(counts: PairedCounts, z: float = Z_95) -> tuple[float, float] | None:
    """95 % interval for B's accuracy minus A's (Newcombe's square-and-add for paired data)."""
    n = counts.n
    if n == 0:
        return None
    a_rate = wilson(counts.a_correct, n, z)
    b_rate = wilson(counts.b_correct, n, z)
    diff = b_rate.rate - a_rate.rate
    phi = _correlation(counts)
    below_b, above_b = b_rate.rate - b_rate.low, b_rate.high - b_rate.rate
    below_a, above_a = a_rate.rate - a_rate.low, a_rate.high - a_rate.rate
    # B low while A high gives the lower end; B high while A low the upper end.
    lower = diff - math.sqrt(max(0.0, below_b ** 2 - 2 * phi * below_b * above_a + above_a ** 2))
    upper = diff + math.sqrt(max(0.0, above_b ** 2 - 2 * phi * above_b * below_a + below_a ** 2))
    return max(-1.0, lower), min(1.0, upper)


def paired_counts(pairs) -> PairedCounts:
    """The 2×2 table of (a_outcome, b_outcome) pairs; pairs with a None outcome are left out."""
    table = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for a_outcome, b_outcome in pairs:
        if a_outcome is None or b_outcome is None:
            continue
        table[(bool(a_outcome), bool(b_outcome))] += 1
    return PairedCounts(table[(True, True)], table[(True, False)], table[(False, True)], table[(False, False)])


def compare_counts(counts: PairedCounts) -> PairedComparison:
    n = counts.n
    p_value = mcnemar_exact_p(counts.flipped_to_wrong, counts.flipped_to_correct) if n else None
    a_accuracy = counts.a_correct / n if n else None
    b_accuracy = counts.b_correct / n if n else None
    diff = b_accuracy - a_accuracy if a_accuracy is not None and b_accuracy is not None else None
    return PairedComparison(
        n=n, a_correct=counts.a_correct, b_correct=counts.b_correct, a_accuracy=a_accuracy, b_accuracy=b_accuracy,
        diff=diff, diff_ci=newcombe_paired_interval(counts),
        flipped_to_wrong=counts.flipped_to_wrong, flipped_to_correct=counts.flipped_to_correct,
        both_correct=counts.both_correct, both_wrong=counts.both_wrong, mcnemar_p=p_value,
        significant=p_value is not None and p_value < SIGNIFICANCE)


def compare_outcomes(a: Mapping[str, bool | None], b: Mapping[str, bool | None],
                     groups: Mapping[str, str] | None = None) -> PairedComparison:
    """Compare two runs' outcomes by sample id, overall and per group (``groups``: id → group)."""
    shared = [sample_id for sample_id in a if sample_id in b]
    overall = compare_counts(paired_counts((a[i], b[i]) for i in shared))
    by_group: dict[str, list[str]] = {}
    for sample_id in shared:
        by_group.setdefault(str((groups or {}).get(sample_id, "")), []).append(sample_id)
    per_group = {} if not groups else {
        name: compare_counts(paired_counts((a[i], b[i]) for i in ids)).as_dict()
        for name, ids in by_group.items()}
    for figures in per_group.values():
        figures.pop("by_group", None)
        figures.pop("interval_method", None)
        figures.pop("test_method", None)
    return PairedComparison(**{**asdict(overall), "diff_ci": overall.diff_ci, "by_group": per_group})


def flipped(a: Mapping[str, bool | None], b: Mapping[str, bool | None]) -> dict[str, list[str]]:
    """Ids of the samples that changed outcome from A to B, in A's order."""
    to_wrong = [i for i, outcome in a.items() if outcome is True and b.get(i) is False]
    to_correct = [i for i, outcome in a.items() if outcome is False and b.get(i) is True]
    return {"to_wrong": to_wrong, "to_correct": to_correct}


def is_regression(diff: float | None, mcnemar_p: float | None, alpha: float = SIGNIFICANCE) -> bool:
    """B is significantly worse than A: the difference is negative and McNemar's p is below alpha."""
    return diff is not None and diff < 0 and mcnemar_p is not None and mcnemar_p < alpha
