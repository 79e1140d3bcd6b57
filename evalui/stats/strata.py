"""Strata of labelled items: merging the sparse ones, and the weight each labelled item carries
for its stratum's share of all items. Pure, no I/O."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np


def merge_sparse_strata(labelled: Sequence[Hashable], unlabelled: Sequence[Hashable], *, min_labels: int = 2,
                        order: Sequence[Hashable] | None = None) -> dict:
    """{stratum: the stratum it is merged into}, so that every merged stratum holds ``min_labels``
    labelled items (or all labelled items there are, in one stratum). Strata are merged with a
    neighbour in ``order`` (default: sorted), the sparsest first, into whichever neighbour holds
    fewer labels, so merged strata stay as alike in judge score as the order makes them."""
    present = set(labelled) | set(unlabelled)
    # Without an order the strata must sort (scores, bands, names); mypy cannot know that of Hashable.
    sequence = [s for s in (order if order is not None else sorted(cast("set[Any]", present))) if s in present]
    missing = present - set(sequence)
    if missing:
        raise ValueError(f"strata {sorted(map(str, missing))} are not in the order given")
    groups = [[s] for s in sequence]
    counts = {s: 0 for s in sequence}
    for s in labelled:
        counts[s] += 1

    def labels(group):
        return sum(counts[s] for s in group)

    while len(groups) > 1:
        sparse = min(range(len(groups)), key=lambda i: labels(groups[i]))
        if labels(groups[sparse]) >= min_labels:
            break
        neighbours = [i for i in (sparse - 1, sparse + 1) if 0 <= i < len(groups)]
        other = min(neighbours, key=lambda i: labels(groups[i]))
        first, second = sorted((sparse, other))
        groups[first:second + 1] = [groups[first] + groups[second]]
    return {s: group[0] for group in groups for s in group}


def stratum_weights(labelled: Sequence[Hashable], unlabelled: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """(weights of the labelled items, weights of the unlabelled ones) that give each set the mix of
    strata all items have: a labelled item of stratum s weighs N_s/n_s, an unlabelled one
    N_s/(N_s − n_s). A stratum without a labelled item cannot be represented: merge it first
    (``merge_sparse_strata``)."""
    totals: dict = {}
    for s in list(labelled) + list(unlabelled):
        totals[s] = totals.get(s, 0) + 1
    counts: dict = {}
    for s in labelled:
        counts[s] = counts.get(s, 0) + 1
    empty = [s for s in totals if s not in counts]
    if empty:
        raise ValueError(f"strata without a labelled item: {sorted(map(str, empty))}")
    return (np.array([totals[s] / counts[s] for s in labelled], dtype=float),
            np.array([totals[s] / (totals[s] - counts[s]) for s in unlabelled], dtype=float))
