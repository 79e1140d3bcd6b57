"""How far human reviewers agree with each other and with the LLM judge. Pure functions, no I/O.

Scores are the judge's 1–5 scale, read as an interval scale. ``ratings`` maps
problem_id → reviewer → dimension → score; ``judge`` maps problem_id → dimension → score.

- Krippendorff's alpha (interval), per dimension and pooled: pooled treats each (problem,
  dimension) pair as one unit, so it asks whether reviewers agree on scores in general.
  It allows any number of reviewers per problem and missing reviews.
- Weighted (quadratic) Cohen's kappa between each reviewer and the judge, over the problems both
  scored, all dimensions pooled and per dimension.
- Disputed problems: reviewers chose different statuses, or some dimension's scores are
  ``DISPUTE_RANGE`` or more apart.

A figure that is undefined (fewer than two reviewers, no variation at all) is None, never a guess.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import krippendorff
import numpy as np

SCALE = (1, 2, 3, 4, 5)
DISPUTE_RANGE = 2

Ratings = Mapping[str, Mapping[str, Mapping[str, float]]]


def _finite(value: float) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def _alpha(units: list[dict[str, float]], reviewers: list[str]) -> float | None:
    """Krippendorff's interval alpha of units (each {reviewer: score}); None when it is undefined."""
    pairable = [u for u in units if len(u) >= 2]
    values = {v for u in pairable for v in u.values()}
    if not pairable or len(values) < 2:  # nothing to compare, or no variation: alpha is 0/0
        return None
    matrix = np.full((len(reviewers), len(pairable)), np.nan)
    row = {r: i for i, r in enumerate(reviewers)}
    for column, unit in enumerate(pairable):
        for reviewer, score in unit.items():
            matrix[row[reviewer], column] = score
    return _finite(krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval"))


def krippendorff_alpha(ratings: Ratings, dimensions: Sequence[str]) -> dict:
    """{"pooled": alpha, "per_dimension": {dimension: alpha}, "units": problems with two or more reviews}."""
    reviewers = sorted({r for by_reviewer in ratings.values() for r in by_reviewer})
    per_dimension = {d: [{r: s[d] for r, s in by_reviewer.items()} for by_reviewer in ratings.values()]
                     for d in dimensions}
    return {
        "pooled": _alpha([unit for units in per_dimension.values() for unit in units], reviewers),
        "per_dimension": {d: _alpha(units, reviewers) for d, units in per_dimension.items()},
        "units": sum(1 for by_reviewer in ratings.values() if len(by_reviewer) >= 2),
    }


def quadratic_kappa(human: Sequence[int], judge: Sequence[int]) -> float | None:
    """Weighted (quadratic) Cohen's kappa over the 1–5 scale: 1 - observed / expected disagreement,
    as scikit-learn's ``cohen_kappa_score(labels=SCALE, weights="quadratic")`` gives it (a test holds
    the two together). Written here because importing scikit-learn cost every ``evalui verify``
    call seconds of CPU for this one formula (bench/RESULTS.md)."""
    index = {label: i for i, label in enumerate(SCALE)}
    pairs = [(index[a], index[b]) for a, b in zip(human, judge, strict=True) if a in index and b in index]
    if not pairs:
        return None
    observed = np.zeros((len(SCALE), len(SCALE)))
    for a, b in pairs:
        observed[a, b] += 1
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / len(pairs)
    steps = np.arange(len(SCALE))
    weights = (steps[:, None] - steps[None, :]) ** 2
    disagreement = float((weights * expected).sum())
    if disagreement == 0:  # both raters used one category: 0/0, undefined
        return None
    return _finite(1 - float((weights * observed).sum()) / disagreement)


def _on_scale(score: float) -> int:
    return min(max(int(round(score)), SCALE[0]), SCALE[-1])


def judge_kappa(ratings: Ratings, judge: Mapping[str, Mapping[str, float]], dimensions: Sequence[str]) -> list[dict]:
    """Per reviewer: {"reviewer", "problems", "kappa" (all dimensions pooled), "per_dimension"}.

    Judge scores are rounded onto the 1–5 scale: kappa compares categories.
    """
    reviewers = sorted({r for by_reviewer in ratings.values() for r in by_reviewer})
    results = []
    for reviewer in reviewers:
        both = [p for p, by_reviewer in ratings.items() if reviewer in by_reviewer and p in judge]
        pairs = {d: ([_on_scale(ratings[p][reviewer][d]) for p in both], [_on_scale(judge[p][d]) for p in both])
                 for d in dimensions}
        pooled_human = [h for d in dimensions for h in pairs[d][0]]
        pooled_judge = [j for d in dimensions for j in pairs[d][1]]
        results.append({"reviewer": reviewer, "problems": len(both), "kappa": quadratic_kappa(pooled_human, pooled_judge),
                        "per_dimension": {d: quadratic_kappa(*pairs[d]) for d in dimensions}})
    return results


def disputes(ratings: Ratings, statuses: Mapping[str, Mapping[str, str]], dimensions: Sequence[str]) -> list[dict]:
    """Problems with two or more reviews on which reviewers disagree, most disputed first.

    Each: {"problem_id", "reviewers", "statuses_differ", "mean_range" (over dimensions, of the highest
    score minus the lowest), "largest_range"}. Differing statuses rank first, then the mean range.
    """
    found = []
    for problem_id, by_reviewer in ratings.items():
        if len(by_reviewer) < 2:
            continue
        ranges = [max(s[d] for s in by_reviewer.values()) - min(s[d] for s in by_reviewer.values())
                  for d in dimensions]
        differ = len(set(statuses.get(problem_id, {}).values())) > 1
        if differ or max(ranges) >= DISPUTE_RANGE:
            found.append({"problem_id": problem_id, "reviewers": len(by_reviewer), "statuses_differ": differ,
                          "mean_range": sum(ranges) / len(ranges), "largest_range": max(ranges)})
    return sorted(found, key=lambda d: (not d["statuses_differ"], -d["mean_range"], d["problem_id"]))
