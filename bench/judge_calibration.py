"""How well evalui's corrected judge figures (evalui/stats/calibration.py) do on simulated runs whose
truth is known: bias, 95 % interval coverage and width, against the judge's naive figure and the
human labels alone. Printed as Markdown tables; nothing is asserted (tests/unit/stats/test_stats_calibration.py
asserts the formulas).

A simulated run: N problems, each passing by the human verdict with probability θ; a judge with
sensitivity q1 and specificity q0 says pass or fail; a random n of the problems are labelled by a
human. Parameters are drawn per run: q0, q1 from U(0.6, 0.95), θ from U(0.2, 0.8), n from 20–200,
N from 500–2,000. Every estimate comes from the library's own functions, one call per run, as the
AIME calibration calls them.

Tables:
1. every run drawn as above: the pass rate by Rogan–Gladen (delta method, bootstrap, and
   post-stratified by the judge's verdict), by PPI++, and the naive and human-only figures;
2. the same by judge quality (q0 + q1 − 1) and label budget;
3. a 1–5 mean score: the human score of a problem and a judge's score with a bias and noise;
4. labels chosen by `review_plan` (strata: the judge's verdict) instead of at random: the
   corrected figures with and without the strata's weights.

Run: .venv/bin/python bench/judge_calibration.py [--runs 1000] [--seed 0] [--resamples 2000]
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np

from evalui.stats import calibration as cal
from evalui.stats.review_plan import review_plan


@dataclass
class Tally:
    """Estimates of one method over many runs, each against its run's truth."""

    errors: list
    covered: list
    widths: list
    runs: int = 0

    @classmethod
    def empty(cls) -> Tally:
        return cls([], [], [])

    def add(self, estimate: cal.Estimate, truth: float) -> None:
        self.runs += 1
        if estimate.value is None:
            return
        self.errors.append(estimate.value - truth)
        self.covered.append(estimate.low <= truth <= estimate.high)
        self.widths.append(estimate.high - estimate.low)

    def row(self) -> list[str]:
        if not self.errors:
            return ["–", "–", "–", "–", f"0 / {self.runs}"]
        errors = np.array(self.errors)
        return [f"{errors.mean():+.4f}", f"{np.sqrt(np.mean(errors ** 2)):.3f}", f"{np.mean(self.covered):.1%}",
                f"{np.mean(self.widths):.3f}", f"{len(self.errors)} / {self.runs}"]


def draw_run(rng: np.random.Generator, *, youden: tuple[float, float] | None = None,
             labels: tuple[int, int] = (20, 200)) -> dict:
    """One run's parameters and data; ``youden`` keeps q0 + q1 − 1 within a band (redrawn until it is)."""
    while True:
        q0, q1 = rng.uniform(0.6, 0.95, size=2)
        if youden is None or youden[0] <= q0 + q1 - 1 < youden[1]:
            break
    theta = rng.uniform(0.2, 0.8)
    total = int(rng.integers(500, 2001))
    n = int(rng.integers(labels[0], labels[1] + 1))
    human = rng.random(total) < theta
    judge = np.where(human, rng.random(total) < q1, rng.random(total) >= q0)
    return {"q0": q0, "q1": q1, "theta": theta, "N": total, "n": n,
            "human": human.astype(float), "judge": judge.astype(float)}


METHODS = ("Rogan–Gladen, delta", "Rogan–Gladen, bootstrap", "Rogan–Gladen, strata = judge verdict", "PPI++",
           "naive (judge only)", "human only")


def pass_rate_estimates(run: dict, resamples: int, seed: int) -> dict[str, cal.Estimate]:
    n, human, judge = run["n"], run["human"], run["judge"]
    figure = cal.pass_rate(human[:n], judge[:n], judge[n:])
    return {"Rogan–Gladen, delta": figure.corrected,
            "Rogan–Gladen, bootstrap": cal.rogan_gladen(human[:n], judge[:n], judge[n:], interval="bootstrap",
                                                        resamples=resamples, seed=seed),
            # Random labels post-stratified by the judge's verdict, as `evalui aime calibrate` does with score bands.
            "Rogan–Gladen, strata = judge verdict": cal.rogan_gladen(human[:n], judge[:n], judge[n:],
                                                                     strata=judge[:n].tolist(),
                                                                     strata_unlabelled=judge[n:].tolist()),
            "PPI++": cal.ppi_mean(human[:n], judge[:n], judge[n:], bounds=(0.0, 1.0)),
            "naive (judge only)": figure.naive, "human only": figure.human_only}


def table(title: str, rows: list[list[str]], header: list[str]) -> None:
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


TALLY_HEADER = ["bias", "RMSE", "coverage", "mean width", "runs with a value"]


def overall(runs: int, seed: int, resamples: int) -> None:
    rng = np.random.default_rng(seed)
    tallies = {m: Tally.empty() for m in METHODS}
    for index in range(runs):
        run = draw_run(rng)
        for method, estimate in pass_rate_estimates(run, resamples, seed + index).items():
            tallies[method].add(estimate, run["theta"])
    table(f"Pass rate, {runs} runs (q0, q1 ~ U(0.6, 0.95), θ ~ U(0.2, 0.8), 20–200 labels among "
          f"500–2,000 problems), seed {seed}:", [[m, *tallies[m].row()] for m in METHODS], ["method", *TALLY_HEADER])


YOUDEN_BANDS = ((0.2, 0.45), (0.45, 0.65), (0.65, 0.9))
LABEL_BANDS = ((20, 50), (51, 100), (101, 200))


def breakdown(runs: int, seed: int, resamples: int) -> None:
    rows = []
    for band in YOUDEN_BANDS:
        for labels in LABEL_BANDS:
            rng = np.random.default_rng([seed, int(band[0] * 100), labels[0]])
            tallies = {m: Tally.empty() for m in METHODS}
            for index in range(runs):
                run = draw_run(rng, youden=band, labels=labels)
                for method, estimate in pass_rate_estimates(run, resamples, seed + index).items():
                    tallies[method].add(estimate, run["theta"])
            rg, boot, strat, ppi, naive, human = (tallies[m] for m in METHODS)
            rows.append([f"{band[0]:.2f}–{band[1]:.2f}", f"{labels[0]}–{labels[1]}",
                         f"{np.mean(rg.errors):+.4f}", f"{np.mean(rg.covered):.1%}", f"{np.mean(boot.covered):.1%}",
                         f"{np.mean(strat.errors):+.4f}", f"{np.mean(strat.covered):.1%}",
                         f"{np.mean(ppi.errors):+.4f}", f"{np.mean(ppi.covered):.1%}",
                         f"{np.mean(naive.covered):.1%}", f"{np.mean(human.covered):.1%}",
                         f"{np.mean(rg.widths):.3f}", f"{np.mean(strat.widths):.3f}", f"{np.mean(ppi.widths):.3f}",
                         f"{np.mean(human.widths):.3f}", f"{len(rg.errors)}/{rg.runs}"])
    table(f"Pass rate by judge quality and label budget, {runs} runs per row (RG: Rogan–Gladen; RG strat.: "
          "post-stratified by the judge's verdict):", rows,
          ["q0+q1−1", "labels", "RG bias", "RG cover (delta)", "RG cover (bootstrap)", "RG strat. bias",
           "RG strat. cover", "PPI++ bias", "PPI++ cover", "naive cover", "human cover", "RG width",
           "RG strat. width", "PPI++ width", "human width", "RG given"])


def expected_score(centre: float, sd: float) -> float:
    """E[clip(round(X), 1, 5)] for X ~ N(centre, sd): each dimension's score is a rounded normal, so
    this is the generator's true mean score (linear in the dimensions, whatever they share)."""
    def below(x: float) -> float:
        return 0.5 * (1 + math.erf((x - centre) / (sd * math.sqrt(2))))

    return 1 + sum(1 - below(k + 0.5) for k in range(1, 5))


def score_runs(runs: int, seed: int) -> None:
    """A 1–5 mean score. A problem's human score is the mean of four 1–5 scores (a latent quality plus
    each dimension's noise); the judge's is the human score plus a bias and noise, rounded to
    quarters and held in 1–5, as a mean of four integer scores is."""
    rng = np.random.default_rng(seed + 1)
    tallies = {m: Tally.empty() for m in ("PPI++", "naive (judge only)", "human only")}
    ratios = []
    for _ in range(runs):
        total, n = int(rng.integers(500, 2001)), int(rng.integers(20, 201))
        centre, bias, noise = rng.uniform(2.5, 4.0), rng.uniform(-0.6, 0.6), rng.uniform(0.3, 1.2)
        quality = rng.normal(centre, 0.8, total)
        dimensions = np.clip(np.rint(quality[:, None] + rng.normal(0, 0.6, (total, 4))), 1, 5)
        human = dimensions.mean(axis=1)
        judge = np.clip(np.rint((human + bias + rng.normal(0, noise, total)) * 4) / 4, 1, 5)
        truth = expected_score(centre, math.hypot(0.8, 0.6))
        figure = cal.mean_score(human[:n], judge[:n], judge[n:], bounds=(1.0, 5.0))
        tallies["PPI++"].add(figure.corrected, truth)
        tallies["naive (judge only)"].add(figure.naive, truth)
        tallies["human only"].add(figure.human_only, truth)
        if figure.corrected.value is not None:
            ratios.append(figure.corrected.width / figure.human_only.width)
    table(f"Mean score (1–5), {runs} runs (judge bias U(−0.6, 0.6), noise sd U(0.3, 1.2), 20–200 labels among "
          "500–2,000 problems):", [[m, *t.row()] for m, t in tallies.items()], ["method", *TALLY_HEADER])
    ratios = np.array(ratios)
    print(f"\nPPI++ width / human-only width at the same labels: median {np.median(ratios):.2f}, "
          f"quartiles {np.quantile(ratios, 0.25):.2f}–{np.quantile(ratios, 0.75):.2f}, "
          f"narrower in {np.mean(ratios < 1):.1%} of runs.")


def targeted(runs: int, seed: int) -> None:
    """Labels chosen by review_plan: 20 at random, then the rest of the budget where the plan says
    (strata: the judge's verdict). The figures told the strata (so weighted to all items' mix), and not."""
    rng = np.random.default_rng(seed + 2)
    names = ("RG, strata", "RG, no strata", "PPI++, strata", "PPI++, no strata", "human only, strata",
             "human only, no strata")
    tallies = {m: Tally.empty() for m in names}
    planned, realised = [], []
    for index in range(runs):
        run = draw_run(rng, labels=(60, 200))
        human, judge, n = run["human"], run["judge"], run["n"]
        first = rng.choice(run["N"], size=20, replace=False)
        rest = np.setdiff1d(np.arange(run["N"]), first)
        strata = judge.astype(int)
        plan = review_plan(strata[first].tolist(), human[first], strata[rest].tolist(), more=n - 20,
                               seed=seed + index)
        labelled = np.concatenate([first, rest[list(plan.order)]])
        unlabelled = np.setdiff1d(np.arange(run["N"]), labelled)
        merge = cal.merge_sparse_strata(strata[labelled].tolist(), strata[unlabelled].tolist())
        keys, keys_u = [merge[s] for s in strata[labelled].tolist()], [merge[s] for s in strata[unlabelled].tolist()]
        h, j, ju = human[labelled], judge[labelled], judge[unlabelled]
        truth = run["theta"]
        weighted = cal.pass_rate(h, j, ju, strata=keys, strata_unlabelled=keys_u)
        plain = cal.pass_rate(h, j, ju)
        tallies["RG, strata"].add(weighted.corrected, truth)
        tallies["RG, no strata"].add(plain.corrected, truth)
        tallies["PPI++, strata"].add(cal.mean_score(h, j, ju, strata=keys, strata_unlabelled=keys_u,
                                                    bounds=(0.0, 1.0)).corrected, truth)
        tallies["PPI++, no strata"].add(cal.ppi_mean(h, j, ju, bounds=(0.0, 1.0)), truth)
        tallies["human only, strata"].add(weighted.human_only, truth)
        tallies["human only, no strata"].add(plain.human_only, truth)
        if plan.half_width_after is not None and weighted.corrected.value is not None:
            planned.append(2 * plan.half_width_after)
            realised.append(weighted.corrected.width)
    table(f"Pass rate with labels chosen by review_plan (20 at random, then 40–180 by the plan; strata: the "
          f"judge's verdict), {runs} runs:", [[m, *t.row()] for m, t in tallies.items()], ["method", *TALLY_HEADER])
    print(f"\nThe plan's expected width after its labels, against the corrected interval's width then: mean "
          f"{np.mean(planned):.3f} and {np.mean(realised):.3f} ({len(planned)} runs).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=cal.BOOTSTRAP_RESAMPLES)
    parser.add_argument("--only", choices=("overall", "breakdown", "score", "targeted"))
    args = parser.parse_args()
    started = time.perf_counter()
    steps = {"overall": lambda: overall(args.runs, args.seed, args.resamples),
             "breakdown": lambda: breakdown(args.runs, args.seed, args.resamples),
             "score": lambda: score_runs(args.runs, args.seed),
             "targeted": lambda: targeted(args.runs, args.seed)}
    for name, step in steps.items():
        if args.only in (None, name):
            step()
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
