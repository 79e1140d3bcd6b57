"""Coverage of evalui's clustered accuracy interval (printed, never asserted; the test
tests/integration/stats/test_stats_interval_coverage.py asserts a part of this grid).

Simulated runs: `clusters` clusters of `size` answers each, pass probabilities drawn per cluster from
a beta distribution with mean `accuracy` and intra-cluster correlation `icc` (beta-binomial),
given to evalui.stats.clustered.interval_from_cluster_sums, the function behind every run's ci95.
Coverage is the share of the intervals that contain the true accuracy (target 95 %). For
comparison: Miller's CLT interval (p ± 1.96·SE_clustered) and Wilson over the answers as if
they were independent (what evalui reported before).

Second table: `evalui plan`'s closed forms against the simulated sample size for 80 % power
(evalui.stats.power_simulation; tests/unit/stats/test_plan_power.py holds them within 10 %).

Run: .venv/bin/python bench/interval_coverage.py [--replicates 2000] [--seed 0] [--only coverage|plan]
"""

from __future__ import annotations

import argparse
import itertools
import time

from evalui.stats.coverage_simulation import interval_coverage
from evalui.stats.power import Design, samples_needed
from evalui.stats.power_simulation import simulated_samples

ACCURACIES = (0.5, 0.7, 0.9)
ICCS = (0.0, 0.1, 0.25, 0.5)
CLUSTERS = (10, 30, 100)
SIZES = (2, 5, 10)
PLANS = [
    ("unpaired", Design(0.70, 0.05)),
    ("unpaired", Design(0.50, 0.10)),
    ("unpaired", Design(0.90, -0.10)),
    ("paired, φ 0.5", Design(0.70, 0.05, paired=True, correlation=0.5)),
    ("paired, φ 0.2", Design(0.70, 0.05, paired=True, correlation=0.2)),
    ("paired, 10 % discordant", Design(0.70, 0.05, paired=True, discordant=0.10)),
    ("unpaired, 5 epochs, ICC 0.5", Design(0.70, 0.05, epochs=5, icc=0.5)),
    ("unpaired, 3 epochs, ICC 0.2", Design(0.70, 0.05, epochs=3, icc=0.2)),
    ("unpaired, clusters of 4, ICC 0.3", Design(0.70, 0.10, cluster_size=4, icc=0.3)),
    ("paired φ 0.5, 5 epochs, ICC 0.5", Design(0.70, 0.05, paired=True, epochs=5, icc=0.5)),
]


def plan_table(replicates: int, seed: int) -> None:
    print(f"\n`evalui plan` against simulation ({replicates} simulated pairs of runs per size, seed {seed}):\n")
    print("| design | baseline → target | closed form | simulation | gap |")
    print("|---|---|---|---|---|")
    for name, design in PLANS:
        closed, simulated = samples_needed(design), simulated_samples(design, replicates=replicates, seed=seed)
        print(f"| {name} | {design.baseline:.2f} → {design.target:.2f} | {closed:.0f} | {simulated:.0f} | "
              f"{(closed - simulated) / simulated:+.1%} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("coverage", "plan"))
    args = parser.parse_args()
    started = time.perf_counter()
    if args.only != "plan":
        coverage_table(args.replicates, args.seed)
    if args.only != "coverage":
        plan_table(args.replicates, args.seed)
    print(f"\n({time.perf_counter() - started:.0f} s)")


def coverage_table(replicates: int, seed: int) -> None:
    header = " | ".join(f"p={p}" for p in ACCURACIES)
    print(f"Coverage of the 95 % interval, {replicates} simulated runs per cell, seed {seed}.")
    print("Each cell: evalui (clustered) / Miller CLT / Wilson ignoring clusters.\n")
    print(f"| ICC | clusters | size | {header} |")
    print("|---|---|---|" + "---|" * len(ACCURACIES))
    evalui_values = []
    for icc, clusters, size in itertools.product(ICCS, CLUSTERS, SIZES):
        cells = []
        for p in ACCURACIES:
            result = interval_coverage(p, icc, clusters, size, replicates=replicates, seed=seed)
            evalui_values.append((result.coverage, clusters))
            cells.append(f"{result.coverage:.1%} / {result.miller_coverage:.1%} / {result.naive_coverage:.1%}")
        print(f"| {icc:g} | {clusters} | {size} | " + " | ".join(cells) + " |")
    for least in CLUSTERS:
        values = [c for c, g in evalui_values if g >= least]
        print(f"\nevalui's interval with at least {least} clusters: coverage {min(values):.1%}–{max(values):.1%}",
              end="")
    print()


if __name__ == "__main__":
    main()
