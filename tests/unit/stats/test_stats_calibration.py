"""evalui/stats/calibration.py against figures worked out here by hand from the papers' formulas
(Rogan–Gladen with Lee et al.'s delta-method variance, arXiv 2511.21140; PPI++, arXiv 2311.01453),
against ppi-python, the PPI authors' own package, as an oracle, and on seeded simulations whose
truth is known."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evalui.stats import calibration as cal
from evalui.stats.review_plan import review_plan

Z = 1.959963984540054


def labelled_set(tp: int, fn: int, fp: int, tn: int) -> tuple[list[int], list[int]]:
    """(human, judge) for tp human passes the judge passed, fn it failed, fp human fails it passed, tn it failed."""
    human = [1] * (tp + fn) + [0] * (fp + tn)
    judge = [1] * tp + [0] * fn + [1] * fp + [0] * tn
    return human, judge


# Rogan–Gladen ----------------------------------------------------------------------------------
def test_rogan_gladen_by_hand():
    human, judge = labelled_set(tp=8, fn=2, fp=1, tn=9)  # sensitivity 0.8, specificity 0.9
    unlabelled = [1] * 40 + [0] * 40
    estimate = cal.rogan_gladen(human, judge, unlabelled)
    p, q1, q0, big_n = 49 / 100, 0.8, 0.9, 100  # the judge passes 8 + 1 + 40 of the 100 problems
    theta = (p + q0 - 1) / (q0 + q1 - 1)
    assert theta == pytest.approx(0.39 / 0.7)
    assert estimate.value == pytest.approx(theta)
    assert estimate.details["sensitivity"] == pytest.approx(q1) and estimate.details["specificity"] == pytest.approx(q0)
    assert estimate.details["judge_rate"] == pytest.approx(p)
    youden = q0 + q1 - 1
    paper = (p * (1 - p) / big_n + (1 - theta) ** 2 * q0 * (1 - q0) / 10
             + theta ** 2 * q1 * (1 - q1) / 10) / youden ** 2
    # The labelled problems are counted in p too: p moves with q1 and against q0.
    overlap = (-2 * (1 - theta) * q0 * (1 - q0) / big_n - 2 * theta * q1 * (1 - q1) / big_n) / youden ** 2
    assert estimate.se == pytest.approx(math.sqrt(paper + overlap), rel=1e-12)
    assert (estimate.low, estimate.high) == pytest.approx((theta - Z * estimate.se, theta + Z * estimate.se))
    assert estimate.flags == () and estimate.reason is None and estimate.interval == "delta"


def test_with_many_unlabelled_items_the_variance_is_the_papers():
    human, judge = labelled_set(tp=30, fn=6, fp=5, tn=19)
    big_n = 1_000_000
    unlabelled = np.r_[np.ones(480_000), np.zeros(big_n - 60 - 480_000)]
    estimate = cal.rogan_gladen(human, judge, unlabelled)
    p = (35 + 480_000) / big_n
    q1, q0 = 30 / 36, 19 / 24
    theta = (p + q0 - 1) / (q0 + q1 - 1)
    paper = (p * (1 - p) / big_n + (1 - theta) ** 2 * q0 * (1 - q0) / 24 + theta ** 2 * q1 * (1 - q1) / 36) \
        / (q0 + q1 - 1) ** 2
    assert estimate.value == pytest.approx(theta)
    # Only the overlap's two covariances, O(1/N), tell them apart.
    assert estimate.se ** 2 == pytest.approx(paper, rel=3e-4) and estimate.se ** 2 < paper


def test_a_perfect_judge_needs_no_correction():
    human, judge = labelled_set(tp=6, fn=0, fp=0, tn=6)
    estimate = cal.rogan_gladen(human, judge, [1, 1, 0, 0, 0, 1, 0, 1])
    assert estimate.value == pytest.approx(10 / 20)
    assert estimate.se == pytest.approx(math.sqrt(0.25 / 20))  # only the problems' own sampling remains


@pytest.mark.parametrize("counts, flag, words", [
    ((4, 1, 1, 3), cal.TOO_FEW_LABELS, "9 labelled items; the correction needs at least 10"),
    ((3, 7, 6, 4), cal.UNINFORMATIVE_JUDGE, "sensitivity + specificity is 0.70, not above 1"),
    ((5, 5, 5, 5), cal.UNINFORMATIVE_JUDGE, "is 1.00, not above 1"),
    ((8, 4, 0, 0), cal.NO_NEGATIVE_LABELS, "specificity is unknown"),
    ((0, 0, 3, 9), cal.NO_POSITIVE_LABELS, "sensitivity is unknown"),
], ids=["nine labels", "worse than chance", "chance", "no human fail", "no human pass"])
def test_no_correction_below_the_minimum_and_why(counts, flag, words):
    human, judge = labelled_set(*counts)
    figure = cal.pass_rate(human, judge, [1, 0] * 50)
    assert figure.corrected.value is None and figure.corrected.low is None
    assert flag in figure.corrected.flags and words in figure.corrected.reason
    assert figure.estimate == "human_only" and figure.chosen is figure.human_only
    assert figure.naive.value == pytest.approx((sum(judge) + 50) / (len(judge) + 100))


def test_an_estimate_outside_zero_one_is_clipped_and_flagged():
    human, judge = labelled_set(tp=9, fn=1, fp=3, tn=7)  # specificity 0.7: p below 0.3 gives θ < 0
    estimate = cal.rogan_gladen(human, judge, [0] * 95 + [1] * 5)
    assert estimate.value == 0.0 and estimate.low == 0.0 and cal.CLIPPED in estimate.flags


def test_the_bootstrap_resamples_both_sets_and_is_seeded():
    rng = np.random.default_rng(5)
    human = (rng.random(150) < 0.45).astype(float)
    judge = np.where(human == 1, rng.random(150) < 0.85, rng.random(150) < 0.2).astype(float)
    unlabelled = (rng.random(1500) < 0.5).astype(float)
    delta = cal.rogan_gladen(human, judge, unlabelled)
    boot = cal.rogan_gladen(human, judge, unlabelled, interval="bootstrap", resamples=4000, seed=11)
    again = cal.rogan_gladen(human, judge, unlabelled, interval="bootstrap", resamples=4000, seed=11)
    other = cal.rogan_gladen(human, judge, unlabelled, interval="bootstrap", resamples=4000, seed=12)
    assert boot == again and (boot.low, boot.high) != (other.low, other.high)
    assert boot.value == delta.value and boot.interval == "bootstrap" and boot.details["undefined_resamples"] == 0
    # With 150 labels the two intervals agree to within a fraction of their width.
    assert abs(boot.low - delta.low) < 0.1 * delta.width and abs(boot.high - delta.high) < 0.1 * delta.width
    assert boot.se == pytest.approx(delta.se, rel=0.1)
    # The unlabelled problems are resampled too: four times as many of them (same rate) narrow the spread.
    more_problems = cal.rogan_gladen(human, judge, np.tile(unlabelled, 4), interval="bootstrap", resamples=4000,
                                     seed=11)
    assert more_problems.se < boot.se


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="0 or 1"):
        cal.rogan_gladen([1, 0.5], [1, 0], [1])
    with pytest.raises(ValueError, match="same items"):
        cal.rogan_gladen([1, 0], [1], [1])
    with pytest.raises(ValueError, match="delta or bootstrap"):
        cal.rogan_gladen([1], [1], [1], interval="wald")
    with pytest.raises(ValueError, match="finite"):
        cal.ppi_mean([1, float("nan")], [1, 2], [1])
    with pytest.raises(ValueError, match="0, 0.5 or 1"):
        cal.win_rate([1, 0.3], [1, 0], [1])


# strata ----------------------------------------------------------------------------------------
def test_post_stratified_rate_and_its_two_phase_interval_by_hand():
    # Judge score bands a, b (judge fails) and c (judge passes); labels taken unevenly across them.
    strata = ["a"] * 4 + ["b"] * 6 + ["c"] * 10
    human = [0, 0, 0, 1] + [0, 1, 1, 0, 1, 0] + [1, 1, 1, 1, 1, 1, 1, 0, 1, 1]
    judge = [0] * 10 + [1] * 10
    strata_u = ["a"] * 36 + ["b"] * 14 + ["c"] * 30
    judge_u = [0] * 50 + [1] * 30
    estimate = cal.rogan_gladen(human, judge, judge_u, strata=strata, strata_unlabelled=strata_u)
    shares, rates, labels, sizes = (0.4, 0.2, 0.4), (1 / 4, 3 / 6, 9 / 10), (4, 6, 10), (40, 20, 40)
    theta = sum(w * r for w, r in zip(shares, rates))
    assert estimate.value == pytest.approx(theta) and estimate.details["variance"] == "stratified"
    spreads = [r * (1 - r) * n / (n - 1) for r, n in zip(rates, labels)]
    variance = theta * (1 - theta) / 100 + sum(w * w * (1 / n - 1 / size) * s
                                               for w, n, size, s in zip(shares, labels, sizes, spreads))
    assert estimate.se == pytest.approx(math.sqrt(variance))
    # The same labels taken as a random sample: Rogan–Gladen's own weighting, another number.
    assert cal.rogan_gladen(human, judge, judge_u).value != pytest.approx(theta)
    boot = cal.rogan_gladen(human, judge, judge_u, strata=strata, strata_unlabelled=strata_u, interval="bootstrap",
                            resamples=20000, seed=3)
    # Binomial draws spread a stratum's rate by p(1 − p)/n, not s²/n: a little narrower on 4–10 labels.
    assert boot.se == pytest.approx(estimate.se, rel=0.15)
    assert boot.low == pytest.approx(estimate.low, abs=0.05) and boot.high == pytest.approx(estimate.high, abs=0.05)


def test_strata_that_mix_verdicts_keep_the_linearised_variance():
    human, judge = labelled_set(tp=8, fn=2, fp=2, tn=8)
    strata = ["x", "y"] * 10
    estimate = cal.rogan_gladen(human, judge, [1, 0] * 40, strata=strata, strata_unlabelled=["x", "y"] * 40)
    assert estimate.details["variance"] == "linearised" and estimate.value is not None


def test_stratum_weights_give_each_set_all_items_mix():
    weights, weights_u = cal.stratum_weights(["a", "a", "b"], ["a", "b", "b", "b"])
    assert list(weights) == [3 / 2, 3 / 2, 4 / 1] and list(weights_u) == [3 / 1, 4 / 3, 4 / 3, 4 / 3]
    with pytest.raises(ValueError, match="without a labelled item"):
        cal.stratum_weights(["a"], ["a", "b"])


def test_sparse_strata_are_merged_with_a_neighbour():
    # Labels per stratum 0–4: 0, 1, 2, 3, 1. 0 joins 1 (one label), which then joins 2; 4 joins 3.
    merged = cal.merge_sparse_strata([1, 2, 2, 3, 3, 3, 4], [0, 1, 4], min_labels=2)
    assert merged == {0: 0, 1: 0, 2: 0, 3: 3, 4: 3}
    assert cal.merge_sparse_strata(["x"], ["y", "z"], min_labels=2) == {"x": "x", "y": "x", "z": "x"}
    assert cal.merge_sparse_strata([1, 1, 2, 2], [1, 2]) == {1: 1, 2: 2}
    with pytest.raises(ValueError, match="not in the order"):
        cal.merge_sparse_strata([1], [2], order=[1])


# PPI++ -----------------------------------------------------------------------------------------
def test_ppi_with_lambda_one_is_the_original_ppi():
    human, judge, unlabelled = [4, 3, 5, 2, 4], [5, 3, 4, 3, 5], [4, 5, 3, 4, 4, 5, 2, 4]
    estimate = cal.ppi_mean(human, judge, unlabelled, lam=1.0, min_labels=2)
    rectifier = [h - j for h, j in zip(human, judge)]  # -1, 0, 1, -1, -1: mean -0.4
    assert estimate.value == pytest.approx(np.mean(unlabelled) - 0.4)
    variance = np.var(unlabelled) / 8 + np.var(rectifier) / 5  # population variances, as the authors'
    assert estimate.se == pytest.approx(math.sqrt(variance))
    assert (estimate.low, estimate.high) == pytest.approx((estimate.value - Z * estimate.se,
                                                           estimate.value + Z * estimate.se))


def test_ppi_with_lambda_zero_is_the_human_mean():
    human, judge = [4, 3, 5, 2, 4, 1], [5, 3, 4, 3, 5, 2]
    estimate = cal.ppi_mean(human, judge, [1, 2, 3], lam=0.0, min_labels=2)
    assert estimate.value == pytest.approx(19 / 6) and estimate.se == pytest.approx(np.std(human) / math.sqrt(6))


def test_the_tuned_lambda_is_the_papers():
    rng = np.random.default_rng(2)
    human = rng.normal(3, 1, 40)
    judge = human + rng.normal(0.4, 0.8, 40)
    unlabelled = rng.normal(3.4, 1.3, 300)
    estimate = cal.ppi_mean(human, judge, unlabelled)
    # λ* = Cov(y, f) / ((1 + n/N) Var(f)), Var(f) over both sets.
    expected = np.mean((human - human.mean()) * (judge - judge.mean())) \
        / ((1 + 40 / 300) * np.var(np.r_[judge, unlabelled], ddof=1))
    assert estimate.details["lambda"] == pytest.approx(expected) and 0 < expected < 1
    assert estimate.value == pytest.approx(expected * unlabelled.mean() + np.mean(human - expected * judge))
    human_alone = cal.human_only(human, binary=False)
    assert estimate.se < human_alone.se  # the judge narrows the interval


def test_a_judge_that_never_varies_is_ignored():
    estimate = cal.ppi_mean([3, 4, 5, 2, 4, 4, 3, 5, 1, 2], [4] * 10, [4] * 50)
    assert estimate.details["lambda"] == 0.0 and cal.JUDGE_CONSTANT in estimate.flags
    assert estimate.value == pytest.approx(3.3)


def test_a_judge_unrelated_to_the_humans_gets_lambda_zero():
    human = [1, 2, 3, 4, 5] * 4
    judge = [5, 4, 3, 2, 1] * 4  # anticorrelated: clipped to 0
    estimate = cal.ppi_mean(human, judge, [1, 5] * 20)
    assert estimate.details["lambda"] == 0.0 and cal.JUDGE_IGNORED in estimate.flags


def test_ppi_needs_ten_labels_and_some_unlabelled_items():
    few = cal.mean_score([3] * 9, [3] * 9, [3] * 10)
    assert few.corrected.value is None and cal.TOO_FEW_LABELS in few.corrected.flags and few.estimate == "human_only"
    none_left = cal.ppi_mean([3, 4] * 6, [3, 4] * 6, [])
    assert none_left.value is None and "no unlabelled items" in none_left.reason


@pytest.mark.parametrize("kind", ["scores", "binary", "pairwise", "weighted"])
@pytest.mark.parametrize("seed", range(4))
def test_ppi_matches_ppi_python(kind, seed):
    import ppi_py  # the `test` extra installs it: without it this test fails rather than skips
    rng = np.random.default_rng(100 + seed)
    n, big_n = int(rng.integers(15, 250)), int(rng.integers(100, 3000))
    if kind == "binary":
        truth = rng.random(n + big_n) < rng.uniform(0.2, 0.8)
        judged = np.where(truth, rng.random(n + big_n) < 0.85, rng.random(n + big_n) < 0.25)
        human, judge, unlabelled = truth[:n] * 1.0, judged[:n] * 1.0, judged[n:] * 1.0
    elif kind == "pairwise":
        human = rng.choice([0.0, 0.5, 1.0], n)
        judge = np.where(rng.random(n) < 0.7, human, rng.choice([0.0, 0.5, 1.0], n))
        unlabelled = rng.choice([0.0, 0.5, 1.0], big_n, p=[0.3, 0.2, 0.5])
    else:
        human = np.clip(rng.normal(3.2, 1.0, n), 1, 5)
        judge = np.clip(human + rng.normal(0.3, 0.7, n), 1, 5)
        unlabelled = np.clip(rng.normal(3.5, 1.1, big_n), 1, 5)
    weights = rng.uniform(0.3, 3, n) if kind == "weighted" else None
    weights_u = rng.uniform(0.3, 3, big_n) if kind == "weighted" else None
    ours = cal.ppi_mean(human, judge, unlabelled, weights=weights, weights_unlabelled=weights_u, min_labels=2)
    point = ppi_py.ppi_mean_pointestimate(human, judge, unlabelled, w=weights, w_unlabeled=weights_u)
    low, high = ppi_py.ppi_mean_ci(human, judge, unlabelled, alpha=0.05, w=weights, w_unlabeled=weights_u)
    assert ours.value == pytest.approx(float(np.squeeze(point)), abs=1e-9)
    assert ours.low == pytest.approx(float(np.squeeze(low)), abs=1e-9)
    assert ours.high == pytest.approx(float(np.squeeze(high)), abs=1e-9)


# the three figures -----------------------------------------------------------------------------
def test_three_figures_side_by_side():
    human, judge = labelled_set(tp=18, fn=2, fp=6, tn=14)
    unlabelled = [1] * 300 + [0] * 160
    figure = cal.pass_rate(human, judge, unlabelled)
    assert figure.estimate == "corrected" and figure.chosen is figure.corrected
    assert figure.naive.value == pytest.approx(324 / 500) and figure.naive.interval == "wilson"
    assert figure.human_only.value == pytest.approx(20 / 40) and figure.human_only.interval == "wilson"
    assert figure.naive.n_labelled == 40 and figure.naive.n_unlabelled == 460
    data = json.loads(json.dumps(figure.as_dict()))
    assert set(data) == {"estimate", "naive", "human_only", "corrected", "flags"}
    assert data["corrected"]["method"] == "rogan_gladen" and data["corrected"]["width"] > 0


def test_mean_score_and_win_rate_figures():
    rng = np.random.default_rng(9)
    human = rng.integers(1, 6, 30).astype(float)
    judge = np.clip(human + rng.integers(-1, 2, 30), 1, 5)
    figure = cal.mean_score(human, judge, rng.integers(2, 6, 200), bounds=(1, 5))
    assert figure.estimate == "corrected" and figure.corrected.method == "ppi++"
    assert 1 <= figure.corrected.low <= figure.corrected.high <= 5
    assert figure.naive.interval == "normal" and figure.human_only.value == pytest.approx(human.mean())
    outcomes = rng.choice([0, 0.5, 1], 25)
    wins = cal.win_rate(outcomes, outcomes, rng.choice([0, 1], 100))
    assert 0 < wins.corrected.details["lambda"] <= 1 and wins.corrected.width < wins.human_only.width
    assert 0 <= wins.corrected.low <= wins.corrected.high <= 1


# what to review next ---------------------------------------------------------------------------
def test_a_stratum_without_labels_comes_first_then_the_largest_gain():
    labelled = ["low"] * 3 + ["high"] * 3
    outcomes = [0, 0, 1] + [1, 1, 1]
    unlabelled = ["low"] * 40 + ["high"] * 40 + ["edge"] * 20
    plan = review_plan(labelled, outcomes, unlabelled, more=5, seed=1)
    strata = [unlabelled[i] for i in plan.order]
    assert strata[0] == "edge" and plan.narrows_by[0] is None and plan.half_width_now is None
    # After one label in each, the gain W²·σ²·(1/n − 1/(n+1)) decides: "edge" has one label, the others three.
    table = {row["stratum"]: row for row in plan.strata}
    assert table["low"]["spread"] == pytest.approx((2 / 5) * (3 / 5))  # Laplace: (1 + 1)/(3 + 2)
    assert table["edge"]["variance_drop"] is None and table["low"]["variance_drop"] == pytest.approx(
        (43 / 106) ** 2 * 0.24 * (1 / 3 - 1 / 4))
    assert plan.half_width_after is not None and len(plan.order) == 5 == len(set(plan.order))
    assert all(step is None or step > 0 for step in plan.narrows_by)


def test_the_plan_is_seeded_random_within_a_stratum_and_stops_when_nothing_is_left():
    labelled, outcomes = ["a", "a", "b", "b"], [0, 1, 1, 1]
    unlabelled = ["a"] * 6 + ["b"] * 2
    first = review_plan(labelled, outcomes, unlabelled, more=50, seed=4)
    assert first == review_plan(labelled, outcomes, unlabelled, more=50, seed=4)
    assert sorted(first.order) == list(range(8)) and first.more == 8
    orders = {review_plan(labelled, outcomes, unlabelled, more=3, seed=s).order for s in range(6)}
    assert len(orders) > 1
    # Everything labelled: only the first phase's variance is left, at the Laplace-smoothed rates of
    # a (1 pass in 2: 2/4) and b (2 in 2: 3/4), weighted by their 8 and 4 of the 12 items.
    rate = (8 / 12) * (2 / 4) + (4 / 12) * (3 / 4)
    assert first.half_width_after == pytest.approx(Z * math.sqrt(rate * (1 - rate) / 12))


def test_the_plans_expected_width_is_the_intervals_after_the_labels():
    rng = np.random.default_rng(21)
    scores = rng.uniform(1, 5, 1200)
    human = (rng.random(1200) < np.clip((scores - 1) / 4 + rng.normal(0, 0.15, 1200), 0, 1)).astype(float)
    judge = (scores >= 3.5).astype(float)
    bands = np.digitize(scores, [2.5, 3.5, 4.5])
    first = rng.choice(1200, 40, replace=False)
    rest = np.setdiff1d(np.arange(1200), first)
    plan = review_plan(bands[first].tolist(), human[first], bands[rest].tolist(), more=160, seed=2)
    labelled = np.r_[first, rest[list(plan.order)]]
    unlabelled = np.setdiff1d(np.arange(1200), labelled)
    estimate = cal.rogan_gladen(human[labelled], judge[labelled], judge[unlabelled], strata=bands[labelled].tolist(),
                                strata_unlabelled=bands[unlabelled].tolist())
    assert estimate.details["variance"] == "stratified"
    assert plan.half_width_after == pytest.approx(estimate.width / 2, rel=0.15)
    assert plan.half_width_after < plan.half_width_now


# seeded simulations ----------------------------------------------------------------------------
def simulate(rng, *, theta, q0, q1, total, labels):
    human = rng.random(total) < theta
    judge = np.where(human, rng.random(total) < q1, rng.random(total) >= q0)
    return human[:labels] * 1.0, judge[:labels] * 1.0, judge[labels:] * 1.0


def test_the_correction_is_unbiased_and_covers_where_the_naive_figure_does_not():
    rng = np.random.default_rng(2024)
    errors, covered, naive_covered, ppi_covered = [], [], [], []
    for _ in range(600):
        human, judge, unlabelled = simulate(rng, theta=0.35, q0=0.8, q1=0.9, total=800, labels=80)
        figure = cal.pass_rate(human, judge, unlabelled)
        errors.append(figure.corrected.value - 0.35)
        covered.append(figure.corrected.low <= 0.35 <= figure.corrected.high)
        naive_covered.append(figure.naive.low <= 0.35 <= figure.naive.high)
        ppi = cal.ppi_mean(human, judge, unlabelled)
        ppi_covered.append(ppi.low <= 0.35 <= ppi.high)
    assert abs(np.mean(errors)) < 0.01
    assert 0.93 <= np.mean(covered) <= 0.97 and 0.92 <= np.mean(ppi_covered) <= 0.97
    assert np.mean(naive_covered) < 0.2  # the judge passes 0.35·0.9 + 0.65·0.2 = 0.445 of them
