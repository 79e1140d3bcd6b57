"""Krippendorff's alpha and weighted kappa from evalui/stats/agreement.py (the krippendorff package
and scikit-learn) against computations written here from the textbook definitions, a different
route: alpha from pairwise squared differences, kappa from observed over expected disagreement."""

from __future__ import annotations

import itertools
import random
import warnings

import pytest

from evalui.stats import agreement

DIMENSIONS = ("correctness", "clarity", "difficulty_match", "completeness")


def textbook_interval_alpha(units: list[list[float]]) -> float:
    """alpha = 1 - D_o / D_e with squared differences.

    D_o: within each unit of m values, every ordered pair's squared difference weighted 1/(m-1),
    summed, over n (all pairable values). D_e: every ordered pair of the n pooled values, over n(n-1).
    """
    units = [u for u in units if len(u) >= 2]
    pooled = [v for u in units for v in u]
    n = len(pooled)
    observed = sum(sum((a - b) ** 2 for a, b in itertools.permutations(u, 2)) / (len(u) - 1) for u in units) / n
    expected = sum((a - b) ** 2 for a, b in itertools.permutations(pooled, 2)) / (n * (n - 1))
    return 1 - observed / expected


def textbook_quadratic_kappa(x: list[int], y: list[int]) -> float:
    """1 - mean squared difference of the pairs / mean squared difference of all cross pairs (chance)."""
    observed = sum((a - b) ** 2 for a, b in zip(x, y)) / len(x)
    expected = sum((a - b) ** 2 for a in x for b in y) / (len(x) * len(y))
    return 1 - observed / expected


def random_ratings(seed: int, problems: int = 12, reviewers=("ana", "ben", "cy")) -> dict:
    rng = random.Random(seed)
    ratings = {}
    for p in range(problems):
        base = rng.randint(1, 5)
        chosen = rng.sample(reviewers, rng.randint(1, len(reviewers)))  # some problems have one review: unpairable
        ratings[f"p{p}"] = {r: {d: min(5, max(1, base + rng.choice((-1, 0, 0, 1)))) for d in DIMENSIONS}
                            for r in chosen}
    return ratings


@pytest.mark.parametrize("seed", range(5))
def test_alpha_per_dimension_and_pooled_match_the_textbook_formula(seed):
    ratings = random_ratings(seed)
    result = agreement.krippendorff_alpha(ratings, DIMENSIONS)
    for dimension in DIMENSIONS:
        units = [[s[dimension] for s in by_reviewer.values()] for by_reviewer in ratings.values()]
        assert result["per_dimension"][dimension] == pytest.approx(textbook_interval_alpha(units), abs=1e-9)
    pooled_units = [[s[d] for s in by_reviewer.values()] for by_reviewer in ratings.values() for d in DIMENSIONS]
    assert result["pooled"] == pytest.approx(textbook_interval_alpha(pooled_units), abs=1e-9)
    assert result["units"] == sum(1 for by_reviewer in ratings.values() if len(by_reviewer) >= 2)


def test_alpha_on_krippendorffs_published_example():
    """The reliability data of Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C:
    4 observers, 12 units, missing values; interval alpha 0.849."""
    rows = {"A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None], "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
            "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None], "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]}
    ratings = {f"u{i}": {o: {d: rows[o][i] for d in DIMENSIONS} for o in rows if rows[o][i] is not None}
               for i in range(12)}
    result = agreement.krippendorff_alpha(ratings, DIMENSIONS)
    units = [[rows[o][i] for o in rows if rows[o][i] is not None] for i in range(12)]
    assert result["per_dimension"]["clarity"] == pytest.approx(textbook_interval_alpha(units), abs=1e-9)
    assert round(result["per_dimension"]["clarity"], 3) == 0.849


def test_alpha_is_none_when_undefined():
    one_reviewer = {"p0": {"ana": dict.fromkeys(DIMENSIONS, 3)}, "p1": {"ana": dict.fromkeys(DIMENSIONS, 4)}}
    assert agreement.krippendorff_alpha(one_reviewer, DIMENSIONS)["pooled"] is None
    all_same = {"p0": {"ana": dict.fromkeys(DIMENSIONS, 4), "ben": dict.fromkeys(DIMENSIONS, 4)}}
    assert agreement.krippendorff_alpha(all_same, DIMENSIONS)["pooled"] is None
    assert agreement.krippendorff_alpha({}, DIMENSIONS) == {"pooled": None, "per_dimension": dict.fromkeys(DIMENSIONS),
                                                            "units": 0}


@pytest.mark.parametrize("seed", range(5))
def test_kappa_with_the_judge_matches_the_textbook_formula(seed):
    ratings = random_ratings(seed)
    rng = random.Random(100 + seed)
    judge = {p: {d: rng.randint(1, 5) + rng.choice((0.0, 0.2)) for d in DIMENSIONS}  # judge scores may be floats
             for p in list(ratings)[:-2]}  # two problems were never judged
    results = {r["reviewer"]: r for r in agreement.judge_kappa(ratings, judge, DIMENSIONS)}
    assert set(results) == {r for by_reviewer in ratings.values() for r in by_reviewer}
    for reviewer, result in results.items():
        both = [p for p in ratings if reviewer in ratings[p] and p in judge]
        assert result["problems"] == len(both)
        human = [ratings[p][reviewer][d] for d in DIMENSIONS for p in both]
        machine = [round(judge[p][d]) for d in DIMENSIONS for p in both]
        assert result["kappa"] == pytest.approx(textbook_quadratic_kappa(human, machine), abs=1e-9)
        for d in DIMENSIONS:
            pair = ([ratings[p][reviewer][d] for p in both], [round(judge[p][d]) for p in both])
            if len(set(pair[0] + pair[1])) > 1:
                assert result["per_dimension"][d] == pytest.approx(textbook_quadratic_kappa(*pair), abs=1e-9)


def test_kappa_is_none_without_shared_problems_or_variation():
    ratings = {"p0": {"ana": dict.fromkeys(DIMENSIONS, 4)}, "p1": {"ben": dict.fromkeys(DIMENSIONS, 2)}}
    judge = {"p0": dict.fromkeys(DIMENSIONS, 4)}
    results = {r["reviewer"]: r for r in agreement.judge_kappa(ratings, judge, DIMENSIONS)}
    assert results["ana"]["problems"] == 1 and results["ana"]["kappa"] is None  # one category only: 0/0
    assert results["ben"] == {"reviewer": "ben", "problems": 0, "kappa": None, "per_dimension": dict.fromkeys(DIMENSIONS)}


def test_disputes_rank_split_statuses_first_then_the_spread():
    scores = lambda c, rest=3: {"correctness": c, "clarity": rest, "difficulty_match": rest, "completeness": rest}  # noqa: E731
    ratings = {"calm": {"ana": scores(4), "ben": scores(5)}, "wide": {"ana": scores(1), "ben": scores(5)},
               "split": {"ana": scores(4), "ben": scores(4)}, "two-apart": {"ana": scores(2), "ben": scores(4)},
               "alone": {"ana": scores(1)}}
    statuses = {p: {r: "approved" for r in by} for p, by in ratings.items()}
    statuses["split"]["ben"] = "rejected"
    found = agreement.disputes(ratings, statuses, DIMENSIONS)
    assert [d["problem_id"] for d in found] == ["split", "wide", "two-apart"]
    assert found[1] == {"problem_id": "wide", "reviewers": 2, "statuses_differ": False, "mean_range": 1.0,
                        "largest_range": 4}


@pytest.mark.parametrize("seed", range(6))
def test_kappa_equals_scikit_learns(seed):
    """evalui computes the kappa itself (scikit-learn's import cost each CLI call seconds); it must
    stay the figure scikit-learn gives, including off-scale scores (ignored) and 0/0 (None)."""
    from sklearn.metrics import cohen_kappa_score

    rng = random.Random(seed)
    n = rng.randint(1, 40)
    human = [rng.choice((1, 2, 3, 4, 5, 5, 4, 7)) for _ in range(n)]
    judge = [min(5, max(1, h + rng.choice((-1, 0, 0, 1)))) if h <= 5 else rng.randint(1, 5) for h in human]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = cohen_kappa_score(human, judge, labels=list(agreement.SCALE), weights="quadratic")
    mine = agreement.quadratic_kappa(human, judge)
    if expected != expected:  # nan: undefined
        assert mine is None
    else:
        assert mine == pytest.approx(float(expected), abs=1e-12)
    assert agreement.quadratic_kappa([3, 3], [3, 3]) is None
