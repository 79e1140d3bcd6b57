"""The clustered accuracy interval covers the true accuracy 93–97 % of the time, at intra-cluster
correlations from 0 to 0.5: simulated runs (beta-binomial clusters, fixed seed) given to the very
function the run summary uses. bench/interval_coverage.py prints the wider table for README."""
from __future__ import annotations

import pytest

from evalui.stats.coverage_simulation import interval_coverage

GRID = [(accuracy, icc, 50, size) for accuracy in (0.5, 0.7, 0.9) for icc in (0.0, 0.25, 0.5) for size in (2, 5)]


@pytest.mark.parametrize("accuracy, icc, clusters, size", GRID)
def test_the_clustered_interval_covers_93_to_97_percent(accuracy, icc, clusters, size):
    result = interval_coverage(accuracy, icc, clusters, size, replicates=2000, seed=7)
    assert 0.93 <= result.coverage <= 0.97, result


def test_the_naive_interval_would_not_cover_with_strong_clustering():
    """Why clustering matters: Wilson over the answers as if independent, at ICC 0.5 with clusters of 5."""
    import numpy as np

    from evalui.stats.metrics import wilson
    from evalui.stats.power_simulation import beta_binomial_sums

    sums = beta_binomial_sums(np.random.default_rng(7), 0.7, 0.5, 5, (2000, 50)).sum(axis=1)
    naive = [wilson(int(k), 250) for k in sums]
    covered = sum(p.low <= 0.7 <= p.high for p in naive) / len(naive)
    assert covered < 0.80
    assert interval_coverage(0.7, 0.5, 50, 5, replicates=2000, seed=7).coverage > 0.93
