"""A generated file's judge scores paired with its reviewers' verdicts, and the judge's figures
corrected by them (evalui.stats.calibration): what ``summary.json``, the judge's report, the
``calibrate`` command and the panel show.

The human verdict of a problem: the adjudicated review when there is one; otherwise its reviewers'
scores averaged per dimension, and pass by the majority of the reviewers' own passes (a tie goes to
the mean of their means). A review passes as the judge does: the mean of its four scores reaches the
pass mark, so both sides measure the same thing. Problems the judge could not score are left out.

Labels are weighted by judge score band (``SCORE_BANDS``, split at the pass mark), each band's
reviewed problems standing for all of the band's problems. Problems reviewed in file order (the
queue's) or in ``review_next``'s order (band by band) give the same unbiased figures then, and the
pass rate gets the post-stratified interval (evalui/stats/calibration.py, ``rogan_gladen``).
Bands with fewer than two reviewed problems are merged with a neighbour on the same side of the pass
mark; a side with none leaves the figures unweighted, which assumes the reviewed problems are a
random sample of the file.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from evalui.errors import InputError
from evalui.review.report import file_reviews, judge_file, judge_scores, scores_of
from evalui.review.reviews import PREFERENCE, ProblemReviews
from evalui.review.uploads import read_json
from evalui.stats import calibration as cal
from evalui.stats.metrics import JUDGE_DIMENSIONS, PASS_THRESHOLD
from evalui.stats.review_plan import review_plan

SCORE_BANDS = (2.5, PASS_THRESHOLD, 4.5)
BAND_NAMES = ("below 2.5", "2.5 to 3.5", "3.5 to 4.5", "4.5 and above")
PASS_BAND = SCORE_BANDS.index(PASS_THRESHOLD) + 1  # the first band the judge passes
PREFERENCE_VALUES = {"yes": 1.0, "no": 0.0}
OUTCOME_VALUES = {"win": 1.0, "loss": 0.0}
REVIEW_NEXT = 10
MIN_BAND_LABELS = 2
HUMAN_VERDICT = (f"the adjudicated review; otherwise the reviewers' scores averaged per dimension, and pass by the "
                 f"majority of their passes (mean of the four scores ≥ {PASS_THRESHOLD}), a tie by the mean of "
                 "their means")


@dataclass(frozen=True)
class HumanVerdict:
    scores: dict  # dimension → score (a mean over reviewers unless adjudicated)
    mean: float
    passed: bool
    rule: str  # adjudicated, single, majority or mean
    reviewers: int
    disputed: bool
    better_than_reference: str | None  # yes, no or tie, when the reviewers answered it


@dataclass(frozen=True)
class Pair:
    """One problem: the judge's four scores, their mean and pass, and the human verdict (None: not reviewed)."""

    problem_id: str
    judge: dict
    judge_mean: float
    judge_pass: bool
    band: int  # index into BAND_NAMES
    human: HumanVerdict | None

    def as_dict(self) -> dict:
        return asdict(self)


def _mean(scores: dict) -> float:
    return sum(scores[d] for d in JUDGE_DIMENSIONS) / len(JUDGE_DIMENSIONS)


def _band(mean: float) -> int:
    return sum(mean >= edge for edge in SCORE_BANDS)


def _preference(answers: list[str]) -> str | None:
    """The most common answer; a tie between answers is a tie."""
    if not answers:
        return None
    counts = Counter(answers).most_common()
    return counts[0][0] if len(counts) == 1 or counts[0][1] > counts[1][1] else "tie"


def human_verdict(problem: ProblemReviews, pass_mark: float = PASS_THRESHOLD) -> HumanVerdict | None:
    reviews = problem.reviews or ([problem.final] if problem.final else [])
    answers = [r[PREFERENCE] for r in reviews if r.get(PREFERENCE)]
    if problem.adjudicated and problem.final:
        scores = dict(problem.final["scores"])
        # An adjudicator who settles the scores without comparing leaves the reviewers' comparison standing.
        return HumanVerdict(scores, _mean(scores), _mean(scores) >= pass_mark, "adjudicated", len(problem.reviews),
                            False, problem.final.get(PREFERENCE) or _preference(answers))
    if not reviews:
        return None
    scores = {d: sum(r["scores"][d] for r in reviews) / len(reviews) for d in JUDGE_DIMENSIONS}
    means = [_mean(r["scores"]) for r in reviews]
    passes = sum(m >= pass_mark for m in means)
    if len(reviews) == 1:
        passed, rule = passes == 1, "single"
    elif 2 * passes != len(reviews):
        passed, rule = 2 * passes > len(reviews), "majority"
    else:
        passed, rule = sum(means) / len(means) >= pass_mark, "mean"
    return HumanVerdict(scores, _mean(scores), passed, rule, len(reviews), problem.disputed, _preference(answers))


def pair_reviews(problem_ids: list[str], judged: dict[str, dict], parsed: dict[str, ProblemReviews],
                 pass_mark: float = PASS_THRESHOLD) -> tuple[list[Pair], list[str]]:
    """(a pair per problem the judge scored, in file order; the reviewed problems the judge did not score)."""
    pairs, unjudged = [], []
    for problem_id in problem_ids:
        human = human_verdict(parsed[problem_id], pass_mark) if problem_id in parsed else None
        if problem_id not in judged:
            if human is not None:
                unjudged.append(problem_id)
            continue
        scores = {d: float(judged[problem_id][d]) for d in JUDGE_DIMENSIONS}
        mean = _mean(scores)
        pairs.append(Pair(problem_id, scores, mean, mean >= pass_mark, _band(mean), human))
    return pairs, unjudged


def pairs_for(data_file: str | Path, judged: dict[str, dict] | None = None) -> tuple[list[Pair], list[str]]:
    """The file's pairs; ``judged`` ({problem_id: {dimension: score}}) instead of ``<stem>_judge.json``."""
    problems, parsed, _ = file_reviews(data_file)
    judged = judge_scores(judge_file(data_file)) if judged is None else judged
    return pair_reviews([p["problem_id"] for p in problems], judged, parsed)


def winrate_file(data_file: str | Path) -> Path:
    return Path(data_file).with_name(f"{Path(data_file).stem}_winrate.json")


def winrate_outcomes(path: str | Path) -> dict[str, str]:
    """{generated problem_id: win, loss or tie} from a ``<stem>_winrate.json``; {} when there is none or it
    is unusable."""
    try:
        results = read_json(path).get("results", [])
    except (InputError, AttributeError):
        return {}
    outcomes = {}
    for result in results if isinstance(results, list) else []:
        if isinstance(result, dict) and isinstance(result.get("generated_id"), str) \
                and result.get("outcome") in ("win", "loss", "tie"):
            outcomes[result["generated_id"]] = result["outcome"]
    return outcomes


def winrate_partners(path: str | Path) -> dict[str, str]:
    """{generated problem_id: the id of the reference problem the win-rate judge compared it with} from a
    ``<stem>_winrate.json``; {} when there is none or it is unusable. The judge's outcome is left out:
    a reviewer answering ``better_than_reference`` must not see it."""
    try:
        results = read_json(path).get("results", [])
    except (InputError, AttributeError):
        return {}
    partners = {}
    for result in results if isinstance(results, list) else []:
        if isinstance(result, dict) and isinstance(result.get("generated_id"), str) \
                and isinstance(result.get("real_id"), (str, int)):
            partners[result["generated_id"]] = str(result["real_id"])
    return partners


# strata ----------------------------------------------------------------------------------------
def _strata(labelled: list[Pair], unlabelled: list[Pair]) -> tuple[list | None, list | None, str]:
    """Each item's merged band, bands merged within each side of the pass mark; (None, None, why)
    when a side has problems but no reviewed one, so no weighting can stand for it."""
    keys, keys_u = [None] * len(labelled), [None] * len(unlabelled)
    for side in (False, True):
        own = [i for i, p in enumerate(labelled) if p.judge_pass is side]
        own_u = [i for i, p in enumerate(unlabelled) if p.judge_pass is side]
        if not own and own_u:
            verdict = "passes" if side else "fails"
            return None, None, (f"no reviewed problem among those the judge {verdict}: the figures are not weighted "
                                "by score band and assume the reviewed problems are a random sample")
        order = [b for b in range(len(BAND_NAMES)) if (b >= PASS_BAND) == side]
        merged = cal.merge_sparse_strata([labelled[i].band for i in own], [unlabelled[i].band for i in own_u],
                                         min_labels=MIN_BAND_LABELS, order=order)
        for i in own:
            keys[i] = merged[labelled[i].band]
        for i in own_u:
            keys_u[i] = merged[unlabelled[i].band]
    groups = sorted({k for k in keys + keys_u})
    return keys, keys_u, f"weighted by judge score band ({len(groups)} after merging sparse bands)"


def _by_band(pairs: list[Pair]) -> list[dict]:
    """The calibration chart's counts: per judge score band, problems, reviewed, and the human passes among them."""
    rows = []
    for band, name in enumerate(BAND_NAMES):
        inside = [p for p in pairs if p.band == band]
        reviewed = [p for p in inside if p.human is not None]
        rows.append({"band": name, "judge_passes": band >= PASS_BAND, "problems": len(inside),
                     "reviewed": len(reviewed),
                     "human_passes": sum(p.human.passed for p in reviewed),
                     "judge_mean": sum(p.judge_mean for p in inside) / len(inside) if inside else None,
                     "human_mean": sum(p.human.mean for p in reviewed) / len(reviewed) if reviewed else None})
    return rows


def review_next(pairs: list[Pair], more: int = REVIEW_NEXT, seed: int = 0) -> dict:
    """The unreviewed problems to review next, best first, by how much each narrows the pass rate's
    interval (evalui.stats.review_plan.review_plan over the judge score bands), and the interval's
    expected half-width now and after them."""
    labelled = [p for p in pairs if p.human is not None]
    unlabelled = [p for p in pairs if p.human is None]
    plan = review_plan([p.band for p in labelled], [float(p.human.passed) for p in labelled],
                           [p.band for p in unlabelled], more=more, seed=seed)
    return {"problem_ids": [unlabelled[i].problem_id for i in plan.order],
            "bands": [BAND_NAMES[unlabelled[i].band] for i in plan.order],
            "narrows_by": list(plan.narrows_by), "half_width_now": plan.half_width_now,
            "half_width_after": plan.half_width_after, "more": plan.more,
            "note": "in each band the order is random, so the reviewed problems stay a fair sample of it"}


def plan_for(data_file: str | Path, more: int = REVIEW_NEXT, seed: int = 0) -> dict | None:
    """The panel's "review these next" for a generated file: ``review_next`` over its pairs (the judge's
    scores from ``<stem>_judge.json``), with the counts of problems reviewed and judged; None when the
    judge has scored none of its problems. Bands are left out: in blind mode they would show the
    judge's score of a problem before the reviewer has scored it."""
    pairs, _ = pairs_for(data_file)
    if not pairs:
        return None
    plan = review_next(pairs, more, seed)
    plan.pop("bands", None)
    return _finite({**plan, "judged": len(pairs), "reviewed": sum(1 for p in pairs if p.human is not None)})


# the figures -----------------------------------------------------------------------------------
def calibrated_figures(pairs: list[Pair], outcomes: dict[str, str] | None = None, *, interval: str = "delta",
                       seed: int | None = None, more: int = REVIEW_NEXT, tie_value: float = 0.0) -> dict:
    """``summary.json``'s ``calibrated``: the pass rate, the mean score, each dimension and the win
    rate, each naive, human-only and corrected with its interval, and which to report.

    ``outcomes``: the win-rate judge's outcome per problem; the human side is the reviewers'
    ``better_than_reference``. ``tie_value``: what a tie counts, on both sides (0, as the win rate
    evalui reports counts only wins; 0.5 counts ties as half a win).
    """
    if tie_value not in (0.0, 0.5):
        raise ValueError("tie_value must be 0 or 0.5")
    labelled = [p for p in pairs if p.human is not None]
    unlabelled = [p for p in pairs if p.human is None]
    keys, keys_u, weighting = _strata(labelled, unlabelled)
    strata = {"strata": keys, "strata_unlabelled": keys_u}
    passes = cal.pass_rate([float(p.human.passed) for p in labelled], [float(p.judge_pass) for p in labelled],
                           [float(p.judge_pass) for p in unlabelled], interval=interval, seed=seed, **strata)
    score = cal.mean_score([p.human.mean for p in labelled], [p.judge_mean for p in labelled],
                           [p.judge_mean for p in unlabelled], bounds=(1.0, 5.0), **strata)
    dimensions = {d: cal.mean_score([p.human.scores[d] for p in labelled], [p.judge[d] for p in labelled],
                                    [p.judge[d] for p in unlabelled], bounds=(1.0, 5.0), **strata)
                  for d in JUDGE_DIMENSIONS}
    block = {
        "method": {"pass_rate": "rogan_gladen", "means": "ppi++", "win_rate": "ppi++", "interval": interval,
                   "weighting": weighting, "pass_mark": PASS_THRESHOLD, "human_verdict": HUMAN_VERDICT},
        "n_labelled": len(labelled), "n_unlabelled": len(unlabelled),
        "disputed": sum(1 for p in labelled if p.human.disputed),
        "pass_rate": passes.as_dict(), "mean_score": score.as_dict(),
        "dimensions": {d: f.as_dict() for d, f in dimensions.items()},
        "win_rate": _win_rate(pairs, outcomes or {}, tie_value),
        "by_judge_score": _by_band(pairs),
        "review_next": review_next(pairs, more, seed or 0),
    }
    block["flags"] = sorted({f for figure in (passes, score) for f in figure.flags})
    return block


def _win_rate(pairs: list[Pair], outcomes: dict[str, str], tie_value: float) -> dict:
    """The win rate three ways, over the problems the win-rate judge compared; weighted by the same
    score bands when the problems the reviewers compared cover both sides of the pass mark."""
    if not outcomes:
        return {"reason": "no win-rate results beside the file", "n_labelled": 0, "n_unlabelled": 0}
    by_id = {p.problem_id: p for p in pairs}
    judged = {**OUTCOME_VALUES, "tie": tie_value}
    human_values = {**PREFERENCE_VALUES, "tie": tie_value}
    labelled, unlabelled = [], []
    for problem_id, outcome in outcomes.items():
        pair = by_id.get(problem_id)
        answer = pair.human.better_than_reference if pair is not None and pair.human is not None else None
        (labelled if answer is not None else unlabelled).append((pair, judged[outcome], human_values.get(answer)))
    strata = {}
    if all(pair is not None for pair, _, _ in labelled + unlabelled):
        keys, keys_u, weighting = _strata([p for p, _, _ in labelled], [p for p, _, _ in unlabelled])
        strata = {"strata": keys, "strata_unlabelled": keys_u}
    else:
        weighting = "not weighted: some compared problems have no judge score"
    figure = cal.win_rate([h for _, _, h in labelled], [j for _, j, _ in labelled], [j for _, j, _ in unlabelled],
                          **strata)
    return {**figure.as_dict(), "n_labelled": len(labelled), "n_unlabelled": len(unlabelled),
            "tie_value": tie_value, "weighting": weighting}


def calibrate(data_file: str | Path, *, judged: dict[str, dict] | None = None, interval: str = "delta",
              seed: int | None = None, more: int = REVIEW_NEXT, tie_value: float = 0.0) -> dict:
    """The calibrated figures of a generated file from its judge, win-rate and reviews files beside it
    (``judged``: the judge's scores, when they are not written yet). An InputError when nothing was judged."""
    pairs, unjudged = pairs_for(data_file, judged)
    if not pairs:
        raise InputError(f"no judge scores for {Path(data_file).name}: run the judge on it first",
                         path=str(data_file))
    block = calibrated_figures(pairs, winrate_outcomes(winrate_file(data_file)), interval=interval, seed=seed,
                               more=more, tie_value=tie_value)
    block["reviewed_without_judge"] = unjudged
    return _finite(block)


def run_calibration(experiment: dict, predictions: list) -> dict | None:
    """A stored judge run's figures corrected by the reviews as they are now: the run's own scores
    (``predictions``, its judged samples' predictions) against the reviews beside its data file
    (``config.options.input``). None for a run whose summary holds no usable ``calibrated`` block (not
    a judge of reviewed items); the stored block when the data file cannot be read any more."""
    stored = (experiment.get("summary") or {}).get("calibrated")
    if not isinstance(stored, dict) or "error" in stored:
        return None
    data = ((experiment.get("config") or {}).get("options") or {}).get("input")
    judged = scores_of(predictions)
    if not data or not judged:
        return stored
    try:
        return calibrate(data, judged=judged)
    except InputError:
        return stored


def _finite(value):
    """JSON has no NaN or infinity: such a figure is None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


# how the figures read --------------------------------------------------------------------------
def _cell(estimate: dict | None, rate: bool) -> str:
    if not estimate or estimate.get("value") is None:
        return "–"

    def number(x: float) -> str:
        return f"{x:.1%}" if rate else f"{x:.2f}"

    return f"{number(estimate['value'])} ({number(estimate['low'])}–{number(estimate['high'])})"


def figure_rows(block: dict) -> list[list[str]]:
    """[figure, judge only, reviewers only, corrected, which to report] per figure, each value with its
    95 % interval: what the report's table and the ``calibrate`` command print."""
    named = [("pass rate", block.get("pass_rate"), True), ("mean score", block.get("mean_score"), False),
             *((f"· {d.replace('_', ' ')}", f, False) for d, f in (block.get("dimensions") or {}).items()),
             ("win rate", block.get("win_rate"), True)]
    rows = []
    for name, figure, rate in named:
        if not figure or "estimate" not in figure:
            continue
        rows.append([name, _cell(figure["naive"], rate), _cell(figure["human_only"], rate),
                     _cell(figure["corrected"], rate), figure["estimate"].replace("_", " ")])
    return rows


def why_not_corrected(block: dict) -> list[str]:
    """One sentence per figure left uncorrected, saying why."""
    reasons = {}
    for name in ("pass_rate", "mean_score", "win_rate"):
        figure = block.get(name) or {}
        reason = (figure.get("corrected") or {}).get("reason") or (figure.get("reason") if "estimate" not in figure
                                                                   else None)
        if reason:
            reasons[name.replace("_", " ")] = reason
    return [f"{name}: {reason}" for name, reason in reasons.items()]
