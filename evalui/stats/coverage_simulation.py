"""How often evalui's clustered accuracy interval covers the true accuracy: simulated runs whose
answers come in clusters with a known intra-cluster correlation (beta-binomial clusters, see
evalui.stats.power_simulation), each given to the very function the run summary uses
(evalui.stats.clustered.interval_from_cluster_sums)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from evalui.stats.clustered import interval_from_cluster_sums
from evalui.stats.metrics import wilson
from evalui.stats.power_simulation import beta_binomial_sums


@dataclass(frozen=True)
class Coverage:
    accuracy: float
    icc: float
    clusters: int
    cluster_size: int
    replicates: int
    coverage: float  # share of intervals that contain the true accuracy
    mean_width: float
    miller_coverage: float  # the same for Miller's CLT interval p ± z·SE_clustered, for comparison
    naive_coverage: float  # and for Wilson over every answer as if independent

    def as_dict(self) -> dict:
        return asdict(self)


def _miller_covers(sums, size: int, truth: float) -> bool:
    """Miller (2024), equation for clustered SE, with the normal quantile."""
    n = len(sums) * size
    rate = sum(sums) / n
    variance = sum((y - rate * size) ** 2 for y in sums) / (n * n)
    half = 1.959963984540054 * variance ** 0.5
    return rate - half <= truth <= rate + half


def interval_coverage(accuracy: float, icc: float, clusters: int, cluster_size: int,
                      replicates: int = 2000, seed: int = 0) -> Coverage:
    import numpy as np

    rng = np.random.default_rng(seed)
    sums = beta_binomial_sums(rng, accuracy, icc, cluster_size, (replicates, clusters)).tolist()
    sizes = [cluster_size] * clusters
    covered = miller = naive = 0
    width = 0.0
    for row in sums:
        interval = interval_from_cluster_sums(row, sizes)
        covered += interval.low <= accuracy <= interval.high
        width += interval.high - interval.low
        miller += _miller_covers(row, cluster_size, accuracy)
        plain = wilson(sum(row), clusters * cluster_size)
        naive += plain.low <= accuracy <= plain.high
    return Coverage(accuracy, icc, clusters, cluster_size, replicates, covered / replicates, width / replicates,
                    miller / replicates, naive / replicates)
