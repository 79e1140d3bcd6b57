"""Power by simulation, to check evalui.stats.power's closed forms: draw many pairs of runs of a
design, apply the test evalui applies, count how often it finds the difference.

Clusters (a sample's epochs, or samples sharing a conversation) are drawn from a beta-binomial
model: each cluster has its own pass probability p_c ~ Beta(p·s, (1−p)·s) with s = (1 − ICC)/ICC,
which gives two answers of one cluster exactly that correlation, and its m answers pass
independently with p_c. Paired clusters draw their shares of the four outcomes (both right, A only,
B only, both wrong) from a Dirichlet in the same way.

The tests are those evalui applies or the closed forms assume: unpaired, the pooled z test, or with
clusters a z test with cluster-robust variances; paired, the exact McNemar test, or with clusters
the mean difference over its cluster-robust standard error.
"""

from __future__ import annotations

import math

from evalui.stats.power import Design, samples_needed

REPLICATES = 4000


def beta_binomial_sums(rng, p: float, icc: float, size: int, shape: tuple[int, ...]):
    """Each cluster's passes among ``size`` answers, with mean ``p`` and intra-cluster correlation ``icc``."""
    if icc <= 0 or size == 1:
        return rng.binomial(size, p, size=shape)
    spread = (1 - icc) / icc
    return rng.binomial(size, rng.beta(p * spread, (1 - p) * spread, size=shape))


def _unpaired_power(design: Design, samples: int, replicates: int, rng) -> float:
    import numpy as np
    from scipy.stats import norm

    m = design.answers_per_cluster
    clusters = max(2, round(samples / design.cluster_size))
    n = clusters * m
    z = norm.ppf(1 - design.alpha / 2)
    if m == 1 or design.icc == 0:
        # Independent answers: the pooled two-proportion z test.
        a = rng.binomial(n, design.baseline, size=replicates) / n
        b = rng.binomial(n, design.target, size=replicates) / n
        pooled = (a + b) / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            statistic = np.abs(b - a) / np.sqrt(pooled * (1 - pooled) * 2 / n)
        return float(np.mean(np.nan_to_num(statistic) > z))
    variances, rates = [], []
    for p in (design.baseline, design.target):
        sums = beta_binomial_sums(rng, p, design.icc, m, (replicates, clusters))
        rate = sums.sum(axis=1) / n
        # The cluster-robust (CR1) variance of each run's accuracy, as evalui.stats.clustered uses.
        variances.append(clusters / (clusters - 1) * ((sums - rate[:, None] * m) ** 2).sum(axis=1) / (n * n))
        rates.append(rate)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.abs(rates[1] - rates[0]) / np.sqrt(variances[0] + variances[1])
    return float(np.mean(np.nan_to_num(statistic) > z))


def _paired_power(design: Design, samples: int, replicates: int, rng) -> float:
    import numpy as np
    from scipy.stats import binom, norm

    m = design.answers_per_cluster
    if m == 1 or design.icc == 0:
        pairs = samples * design.epochs
        counts = rng.multinomial(pairs, design.cells(), size=replicates)
        a_only, b_only = counts[:, 1], counts[:, 2]
        flips = a_only + b_only
        # Exact two-sided McNemar (as evalui.stats.paired): one flip count among all flips at p = 1/2.
        p_value = np.where(flips == 0, 1.0, np.minimum(1.0, 2 * binom.cdf(np.minimum(a_only, b_only), flips, 0.5)))
        return float(np.mean(p_value < design.alpha))
    # Clustered pairs: each cluster's shares of the four cells drawn from a Dirichlet around the design's,
    # with concentration (1 − ICC)/ICC, which gives any function of a pair (the difference B − A
    # included) exactly that intra-cluster correlation. The test: the mean difference over its
    # cluster-robust standard error.
    clusters = max(2, round(samples / design.cluster_size))
    shares = rng.dirichlet(np.array(design.cells()) * (1 - design.icc) / design.icc, size=(replicates, clusters))
    counts = rng.multinomial(m, shares)
    differences = counts[..., 2] - counts[..., 1]  # per cluster: B right only, minus A right only
    n = clusters * m
    mean = differences.sum(axis=1) / n
    variance = clusters / (clusters - 1) * ((differences - mean[:, None] * m) ** 2).sum(axis=1) / (n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.nan_to_num(np.abs(mean) / np.sqrt(variance))
    return float(np.mean(statistic > norm.ppf(1 - design.alpha / 2)))


def simulated_power(design: Design, samples: int, replicates: int = REPLICATES, seed: int = 0) -> float:
    """The share of simulated pairs of runs with ``samples`` samples each in which the test finds the difference."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return (_paired_power if design.paired else _unpaired_power)(design, samples, replicates, rng)


def simulated_samples(design: Design, replicates: int = REPLICATES, seed: int = 0, points: int = 9) -> float:
    """The samples per run at which the simulated power reaches the design's power.

    Power is simulated at ``points`` sizes around the closed form's (0.7× to 1.3×). For a z test,
    Φ⁻¹(power) is linear in √n, so a least-squares line through (√n, Φ⁻¹(power)) gives the size
    where it crosses the target, with less noise than any single point."""
    import numpy as np
    from scipy.stats import norm

    guess = samples_needed(design)
    sizes = sorted({max(2, round(guess * f)) for f in np.linspace(0.7, 1.3, points)})
    powers = [simulated_power(design, s, replicates, seed + i) for i, s in enumerate(sizes)]
    probits = norm.ppf(np.clip(powers, 0.5 / replicates, 1 - 0.5 / replicates))
    slope, intercept = np.polyfit(np.sqrt(sizes), probits, 1)
    if slope <= 0:
        raise ValueError("the simulated power does not grow with the sample size; use more replicates")
    return float(((norm.ppf(design.power) - intercept) / slope) ** 2)


def relative_gap(design: Design, replicates: int = REPLICATES, seed: int = 0) -> float:
    """(closed form − simulation) / simulation, in samples."""
    simulated = simulated_samples(design, replicates, seed)
    return (samples_needed(design) - simulated) / simulated if simulated else math.inf
