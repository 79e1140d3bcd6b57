"""Judge scores paired with the reviewers' verdicts (evalui/review/calibration.py): which verdict
counts (adjudicated, single, majority, mean), the optional "better than the reference?" answer in the
reviews file, the score bands that weight the labels, and the calibrated block's shape."""
from __future__ import annotations

import json

import pytest

from evalui.errors import InputError
from evalui.review import calibration as rc
from evalui.review import reviews as v
from evalui.review.reviews import ProblemReviews
from unit.review.test_verification import SCORES, write_problems

DIMENSIONS = tuple(SCORES)


def review(name: str, score: int, status: str = "approved", preference: str | None = None) -> dict:
    return v.make_review("p", dict.fromkeys(DIMENSIONS, score), status, "", name, preference)


def reviewed(*reviews: dict, final: dict | None = None) -> ProblemReviews:
    return ProblemReviews("p", list(reviews), final or reviews[-1], adjudicated=final is not None)


@pytest.mark.parametrize("reviews, final, passed, rule, mean", [
    ((review("ana", 4),), None, True, "single", 4.0),
    ((review("ana", 3),), None, False, "single", 3.0),
    ((review("ana", 4), review("ben", 4), review("cy", 2)), None, True, "majority", 10 / 3),
    ((review("ana", 2), review("ben", 2), review("cy", 5)), None, False, "majority", 3.0),
    ((review("ana", 4), review("ben", 3)), None, True, "mean", 3.5),
    ((review("ana", 5), review("ben", 1)), None, False, "mean", 3.0),
    ((review("ana", 4), review("ben", 2)), review("lee", 3), False, "adjudicated", 3.0),
], ids=["one pass", "one fail", "two of three pass", "two of three fail", "tie, mean 3.5", "tie, mean 3",
        "adjudicated"])
def test_which_verdict_counts(reviews, final, passed, rule, mean):
    verdict = rc.human_verdict(reviewed(*reviews, final=final))
    assert verdict.rule == rule and verdict.mean == pytest.approx(mean) and verdict.passed is passed


def test_scores_are_averaged_per_dimension_unless_adjudicated():
    ana = v.make_review("p", {**SCORES, "clarity": 2}, "approved", "", "ana")
    ben = v.make_review("p", {**SCORES, "clarity": 5}, "approved", "", "ben")
    assert rc.human_verdict(reviewed(ana, ben)).scores == {**SCORES, "clarity": 3.5}
    lee = v.make_review("p", {**SCORES, "clarity": 1}, "rejected", "", "lee")
    assert rc.human_verdict(reviewed(ana, ben, final=lee)).scores == {**SCORES, "clarity": 1}


def test_the_preference_is_the_majority_answer_and_survives_an_adjudication_without_one():
    answers = (review("ana", 4, preference="yes"), review("ben", 4, preference="yes"), review("cy", 4, preference="no"))
    assert rc.human_verdict(reviewed(*answers)).better_than_reference == "yes"
    split = (review("ana", 4, preference="yes"), review("ben", 4, preference="no"), review("cy", 4))
    assert rc.human_verdict(reviewed(*split)).better_than_reference == "tie"
    assert rc.human_verdict(reviewed(review("ana", 4))).better_than_reference is None
    assert rc.human_verdict(reviewed(*answers, final=review("lee", 2))).better_than_reference == "yes"
    assert rc.human_verdict(reviewed(*answers, final=review("lee", 2, preference="no"))).better_than_reference == "no"


def test_the_preference_is_saved_read_back_and_checked(tmp_path):
    data = write_problems(tmp_path, 2)
    v.save_review(data, v.make_review("gen-0000", SCORES, "approved", "", "ana", "yes"))
    v.save_review(data, v.make_review("gen-0000", SCORES, "approved", "", "ben"))
    entry = json.loads(v.verifications_path(data).read_text())["gen-0000"]
    assert [r.get("better_than_reference") for r in entry["reviews"]] == ["yes", None]
    assert "better_than_reference" not in entry  # the latest save, ben's, did not answer
    parsed, flagged = v.read_all(v.verifications_path(data))
    assert not flagged and parsed["gen-0000"].by("ana")["better_than_reference"] == "yes"
    with pytest.raises(InputError, match="better than the reference must be one of yes, no, tie"):
        v.make_review("gen-0000", SCORES, "approved", "", "ana", "maybe")
    raw = json.loads(v.verifications_path(data).read_text())
    raw["gen-0000"]["reviews"][0]["better_than_reference"] = 1
    v.verifications_path(data).write_text(json.dumps(raw))
    _, flagged = v.read_all(v.verifications_path(data))
    assert "better_than_reference = 1" in flagged["gen-0000"]


def pair(problem_id: str, mean: float, human: float | None) -> rc.Pair:
    verdict = None if human is None else rc.HumanVerdict(dict.fromkeys(DIMENSIONS, human), human, human >= 3.5,
                                                          "single", 1, False, None)
    return rc.Pair(problem_id, dict.fromkeys(DIMENSIONS, mean), mean, mean >= 3.5, rc._band(mean), verdict)


def test_bands_split_at_the_pass_mark_and_sparse_ones_merge_on_their_side():
    assert [rc._band(m) for m in (1.0, 2.49, 2.5, 3.49, 3.5, 4.49, 4.5, 5.0)] == [0, 0, 1, 1, 2, 2, 3, 3]
    labelled = [pair("a", 2.0, 2), pair("b", 3.0, 3), pair("c", 3.0, 4), pair("d", 4.0, 4), pair("e", 5.0, 5)]
    unlabelled = [pair("f", 2.0, None), pair("g", 4.0, None), pair("h", 5.0, None)]
    keys, keys_u, weighting = rc._strata(labelled, unlabelled)
    # Fail side: band 0 has one label, so it joins band 1; pass side: bands 2 and 3 have one each, so they join.
    assert keys == [0, 0, 0, 2, 2] and keys_u == [0, 2, 2] and "2 after merging" in weighting
    keys, _, weighting = rc._strata([pair("a", 2.0, 2)], [pair("g", 4.0, None)])
    assert keys is None and "no reviewed problem among those the judge passes" in weighting


def test_the_block_says_why_nothing_is_corrected_yet(tmp_path):
    data = write_problems(tmp_path, 4)
    (tmp_path / f"{data.stem}_judge.json").write_text(json.dumps({"results": [
        {"problem_id": f"gen-{i:04d}", "scores": {d: {"score": 2 + i, "comment": ""} for d in DIMENSIONS}}
        for i in range(3)]}))
    v.save_review(data, v.make_review("gen-0003", SCORES, "approved", "", "ana"))  # the judge never scored it
    block = rc.calibrate(data)
    assert block["n_labelled"] == 0 and block["n_unlabelled"] == 3 and block["reviewed_without_judge"] == ["gen-0003"]
    assert block["pass_rate"]["estimate"] == "naive" and "too_few_labels" in block["flags"]
    assert block["win_rate"] == {"reason": "no win-rate results beside the file", "n_labelled": 0, "n_unlabelled": 0}
    assert block["review_next"]["problem_ids"] and block["review_next"]["half_width_now"] is None
    assert [row[0] for row in rc.figure_rows(block)][:2] == ["pass rate", "mean score"]
    assert any(line.startswith("pass rate: 0 labelled items") for line in rc.why_not_corrected(block))
    json.dumps(block, allow_nan=False)
    (tmp_path / f"{data.stem}_judge.json").unlink()
    with pytest.raises(InputError, match="no judge scores"):
        rc.calibrate(data)
