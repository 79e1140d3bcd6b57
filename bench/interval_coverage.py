"""Coverage of evalui's clustered accuracy interval (printed, never asserted; the test
tests/integration/test_stats_interval_coverage.py asserts a part of this grid).

Simulated runs: `clusters` clusters of `size` answers each, pass probabilities drawn per cluster from
a beta distribution with mean `accuracy` and intra-cluster correlation `icc` (beta-binomial),
given to evalui.stats.clustered.interval_from_cluster_sums, the function behind every run's ci95.
Coverage is the share of the intervals that contain the true accuracy (target 95 %). For
comparison: Miller's CLT interval (p ± 1.96·SE_clustered) and Wilson over the answers as if
they were independent (what evalui reported before).

Run: .venv/bin/python bench/interval_coverage.py [--replicates 2000] [--seed 0]
"""

from __future__ import annotations

import argparse
import itertools
import time

from evalui.stats.coverage_simulation import interval_coverage

ACCURACIES = (0.5, 0.7, 0.9)
ICCS = (0.0, 0.1, 0.25, 0.5)
CLUSTERS = (10, 30, 100)
SIZES = (2, 5, 10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    header = " | ".join(f"p={p}" for p in ACCURACIES)
    print(f"Coverage of the 95 % interval, {args.replicates} simulated runs per cell, seed {args.seed}.")
    print("Each cell: evalui (clustered) / Miller CLT / Wilson ignoring clusters.\n")
    print(f"| ICC | clusters | size | {header} |")
    print("|---|---|---|" + "---|" * len(ACCURACIES))
    evalui_values = []
    for icc, clusters, size in itertools.product(ICCS, CLUSTERS, SIZES):
        cells = []
        for p in ACCURACIES:
            result = interval_coverage(p, icc, clusters, size, replicates=args.replicates, seed=args.seed)
            evalui_values.append((result.coverage, clusters))
            cells.append(f"{result.coverage:.1%} / {result.miller_coverage:.1%} / {result.naive_coverage:.1%}")
        print(f"| {icc:g} | {clusters} | {size} | " + " | ".join(cells) + " |")
    for least in CLUSTERS:
        values = [c for c, g in evalui_values if g >= least]
        print(f"\nevalui's interval with at least {least} clusters: coverage {min(values):.1%}–{max(values):.1%}",
              end="")
    print(f"\n\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
