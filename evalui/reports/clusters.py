"""The cluster rule of a stored run's benchmark, for the clustered intervals reports compute."""

from __future__ import annotations

from evalui.stats.clustered import ClusterRule, by_sample


def cluster_rule(benchmark: str | None) -> ClusterRule | None:
    """The named benchmark's rule (its spec's ``cluster_of``); each sample its own cluster for one this
    installation cannot load; None (every shared rule) when no benchmark is named."""
    if benchmark is None:
        return None
    from evalui.core.registry import find

    spec = find(benchmark)
    return spec.cluster_of if spec is not None else by_sample
