"""Accuracy intervals where samples come in clusters (Miller 2024, "Adding Error Bars to Evals",
arXiv 2411.00640): answers that share a conversation, a scenario or a sample's repeats are not
independent, so the interval is widened by the clusters' design effect.

The interval is Wilson's with the effective sample size n / deff (Korn & Graubard 1998), where
deff is the cluster-robust (CR1) variance of the accuracy over its binomial variance, and z is
replaced by Student's t with (clusters − 1) degrees of freedom. Why not Miller's own
CLT interval (p ± z·SE_clustered): in the coverage simulation (bench/interval_coverage.py) at an
accuracy of 0.9 and an intra-cluster correlation of 0.5 it covers 89–93 % with 30 to 100 clusters
(75–78 % with 10), where this one keeps 93.5–95.7 % (91–98.5 % with 10). Without clusters (each cluster one sample) the interval
is exactly the Wilson interval evalui always reported.

Pure functions over strings and outcomes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from evalui.stats.epochs import split_epoch
from evalui.stats.metrics import Proportion, wilson

METHOD_WILSON = "wilson"
METHOD_CLUSTERED = "wilson, effective n from the cluster-robust variance (Korn & Graubard 1998), t(clusters−1)"

# A benchmark's cluster rule: a sample's own id (its epoch suffix taken off) -> the key of the cluster
# it shares with other samples, the id itself when it shares none. Benchmarks give theirs in their spec
# (Benchmark.cluster_of); the caller passes it in, so these functions know no benchmark.
ClusterRule = Callable[[str], str]


def by_sample(sample_id: str) -> str:
    """The rule of a benchmark whose samples share nothing: each sample (with its epochs) a cluster."""
    return sample_id


def cluster_key(sample_id: str, rule: ClusterRule | None = None) -> str:
    """The cluster a stored sample belongs to: its repeats (``<id>#e<k>``) with it, and the samples
    that ``rule`` (its benchmark's Benchmark.cluster_of) puts with it; ``rule`` None: the sample alone."""
    own, _ = split_epoch(sample_id)
    return own if rule is None else rule(own)


@dataclass(frozen=True)
class ClusteredProportion:
    """k successes out of n answers in ``clusters`` clusters, with a 95 % interval that accounts for them."""

    successes: int
    total: int
    clusters: int
    rate: float
    low: float
    high: float
    design_effect: float
    method: str

    def proportion(self) -> Proportion:
        return Proportion(self.successes, self.total, self.rate, self.low, self.high)

    def as_dict(self) -> dict:
        return asdict(self)


@functools.lru_cache(maxsize=4096)
def _t_quantile(degrees: int) -> float:
    # Student's t quantile from scipy.special, the function scipy.stats.t.ppf calls: scipy.stats
    # itself takes about a second to import, paid by every run's summary.
    from scipy.special import stdtrit

    return float(stdtrit(degrees, 0.975))


def interval_from_cluster_sums(successes: Iterable[float], sizes: Iterable[float]) -> ClusteredProportion:
    """The interval from each cluster's successes and answers."""
    ys, ms = list(successes), list(sizes)
    n, k, g = sum(ms), sum(ys), len(ms)
    if n == 0:
        return ClusteredProportion(0, 0, 0, 0.0, 0.0, 0.0, 1.0, METHOD_WILSON)
    if g == n:  # every cluster a single answer: no clustering, the plain Wilson interval
        plain = wilson(int(k), int(n))
        return ClusteredProportion(int(k), int(n), g, plain.rate, plain.low, plain.high, 1.0, METHOD_WILSON)
    rate = k / n
    binomial_variance = rate * (1 - rate) / n
    if g < 2:
        deff = float(n)  # one cluster: nothing to estimate its variance from, so it counts as one answer
    elif binomial_variance == 0:
        # All passed (or all failed): the clusters' correlation cannot be estimated, so assume the
        # worst (ICC 1), which makes each cluster count once.
        deff = n / g
    else:
        robust = g / (g - 1) * sum((y - rate * m) ** 2 for y, m in zip(ys, ms)) / (n * n)
        # Floored at 1/(mean cluster size), i.e. at most n·m̄ effective answers: below 1 the clusters vary
        # less than chance would have them (a negative correlation), and without a floor an interval
        # could shrink to nothing. (Truncating at 1 instead over-covers: 97–98 % with pairs and no
        # correlation.)
        deff = max(g / n, robust / binomial_variance)
    z = _t_quantile(g - 1) if g >= 2 else _t_quantile(1)
    effective = n / deff
    denominator = 1 + z * z / effective
    centre = (rate + z * z / (2 * effective)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / effective + z * z / (4 * effective * effective)) / denominator
    return ClusteredProportion(int(k), int(n), g, rate, max(0.0, centre - half), min(1.0, centre + half), deff,
                               METHOD_CLUSTERED)


def clustered_accuracy(outcomes: Iterable[tuple[str, bool]]) -> ClusteredProportion:
    """Accuracy over (cluster key, passed) with its clustered 95 % interval."""
    sums: dict[str, list[int]] = {}
    for key, passed in outcomes:
        bucket = sums.setdefault(str(key), [0, 0])
        bucket[0] += bool(passed)
        bucket[1] += 1
    return interval_from_cluster_sums((s for s, _ in sums.values()), (m for _, m in sums.values()))


def clustered_accuracy_by(rows: Iterable[tuple[str, str, bool]]) -> dict[str, Proportion]:
    """Accuracy per group from (group, cluster key, passed), keys in first-seen order: the same
    shape as metrics.accuracy_by, with each group's interval clustered."""
    per_group: dict[str, list[tuple[str, bool]]] = {}
    for group, key, passed in rows:
        per_group.setdefault(str(group), []).append((key, passed))
    return {group: clustered_accuracy(outcomes).proportion() for group, outcomes in per_group.items()}


def sample_outcomes(rows: Iterable[tuple[str, bool]], rule: ClusterRule | None = None) -> list[tuple[str, bool]]:
    """(cluster key, passed) from (sample id, passed)."""
    return [(cluster_key(sample_id, rule), passed) for sample_id, passed in rows]
