"""Figures about a generated file's reviews: counts, agreement between reviewers and with the LLM
judge, and the most disputed problems. The CLI's ``verify summary`` and the panel show the same."""

from __future__ import annotations

from pathlib import Path

from evalui.errors import InputError
from evalui.review.queue import read_settings
from evalui.review.reviews import ProblemReviews, read_all, review_progress, verifications_path
from evalui.review.uploads import read_data_file, read_json
from evalui.stats import agreement as stats
from evalui.stats.metrics import JUDGE_DIMENSIONS


def judge_file(data_file: str | Path) -> Path:
    return Path(data_file).with_name(f"{Path(data_file).stem}_judge.json")


def judge_scores(judge_path: str | Path) -> dict[str, dict]:
    """{problem_id: {dimension: score}} from a ``<stem>_judge.json``; {} when there is none or it is unusable."""
    try:
        results = read_json(judge_path).get("results", [])
    except (InputError, AttributeError):
        return {}
    return scores_of(results)


def scores_of(results) -> dict[str, dict]:
    """{problem_id: {dimension: score}} from the judge's results (a judge file's, or a stored judge
    run's predictions); results without a problem id or four numeric scores are left out."""
    judged = {}
    for result in results if isinstance(results, list) else []:
        try:
            scores = {d: result["scores"][d]["score"] for d in JUDGE_DIMENSIONS}
            problem_id = result["problem_id"]
        except (KeyError, TypeError):
            continue
        if isinstance(problem_id, str) and all(isinstance(s, (int, float)) and not isinstance(s, bool)
                                               for s in scores.values()):
            judged[problem_id] = scores
    return judged


def final_vs_judge(reviews: dict[str, dict], judged: dict[str, dict], top: int = 5) -> dict:
    """Final human reviews versus the LLM judge: means per dimension, mean absolute difference, largest gaps."""
    both = [pid for pid in reviews if pid in judged]
    per_dimension = {}
    for dimension in JUDGE_DIMENSIONS:
        human = [reviews[p]["scores"][dimension] for p in both]
        judge = [judged[p][dimension] for p in both]
        per_dimension[dimension] = {
            "human_mean": sum(human) / len(human) if human else None,
            "judge_mean": sum(judge) / len(judge) if judge else None,
            "mean_abs_diff": sum(abs(h - j) for h, j in zip(human, judge)) / len(both) if both else None,
        }
    gaps = sorted(((sum(abs(reviews[p]["scores"][d] - judged[p][d]) for d in JUDGE_DIMENSIONS) / len(JUDGE_DIMENSIONS), p)
                   for p in both), reverse=True)
    overall = [g for g, _ in gaps]
    return {"compared": len(both), "per_dimension": per_dimension,
            "mean_abs_diff": sum(overall) / len(overall) if overall else None,
            "largest_disagreements": [{"problem_id": p, "mean_abs_diff": g} for g, p in gaps[:top]]}


def reviewer_agreement(parsed: dict[str, ProblemReviews], judged: dict[str, dict], top: int = 10) -> dict:
    """Krippendorff's alpha between reviewers, each reviewer's weighted kappa with the judge, the disputes.

    Adjudicated problems stay in alpha and kappa (they measure the reviewers) but are no longer disputes.
    """
    ratings = {p: {r["reviewer"]: r["scores"] for r in pr.reviews} for p, pr in parsed.items()}
    statuses = {p: {r["reviewer"]: r["status"] for r in pr.reviews} for p, pr in parsed.items()}
    alpha = stats.krippendorff_alpha(ratings, JUDGE_DIMENSIONS)
    disputed = [d for d in stats.disputes(ratings, statuses, JUDGE_DIMENSIONS) if not parsed[d["problem_id"]].adjudicated]
    return {"krippendorff_alpha": alpha["pooled"], "alpha_per_dimension": alpha["per_dimension"],
            "problems_with_several_reviews": alpha["units"],
            "kappa_vs_judge": stats.judge_kappa(ratings, judged, JUDGE_DIMENSIONS),
            "disputed_count": len(disputed), "most_disputed": disputed[:top]}


def file_reviews(data_file: str | Path) -> tuple[list[dict], dict[str, ProblemReviews], dict[str, str]]:
    """The file's problems, and the reviews and flags of those problems only."""
    problems = read_data_file(data_file)
    ids = {p["problem_id"] for p in problems}
    parsed, flagged = read_all(verifications_path(data_file))
    return (problems, {p: r for p, r in parsed.items() if p in ids}, {p: r for p, r in flagged.items() if p in ids})


def summary(data_file: str | Path) -> dict:
    problems, parsed, flagged = file_reviews(data_file)
    finals = {p: r.final for p, r in parsed.items() if r.final}
    judged = judge_scores(judge_file(data_file))
    reviewers = sorted({r["reviewer"] for pr in parsed.values() for r in pr.reviews})
    return {"input": str(data_file), **review_progress(problems, finals), "settings": read_settings(data_file),
            "reviewers": reviewers, "reviews": sum(len(pr.reviews) for pr in parsed.values()),
            "adjudicated": sum(1 for pr in parsed.values() if pr.adjudicated),
            "flagged": [{"problem_id": p, "reason": r} for p, r in flagged.items()],
            "agreement": final_vs_judge(finals, judged), **reviewer_agreement(parsed, judged)}
