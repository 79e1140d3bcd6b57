"""Reviews need a reviewer and every score: an unnamed or half-scored review is refused and nothing is
written; named reviewers each keep their review; reviews that older versions saved without a name
still load, each under its own "anonymous" label, and no new review can land on one of them."""
from __future__ import annotations

import json

import pytest

from evalui.errors import InputError
from evalui.review import export as hub_export
from evalui.review import queue as queue
from evalui.review import report as report
from evalui.review import reviews as v
from unit.review.test_verification import SCORES, write_problems


@pytest.mark.parametrize("name", ["", "   ", None])
def test_a_review_without_a_name_is_refused_and_nothing_is_written(tmp_path, name):
    data = write_problems(tmp_path, 1)
    with pytest.raises(InputError, match="reviewer needs a name"):
        v.make_review("gen-0000", SCORES, "approved", "", name)
    with pytest.raises(InputError, match="reviewer needs a name"):
        queue.record_review(data, "gen-0000", SCORES, "approved", "", name)
    assert not v.verifications_path(data).exists()


@pytest.mark.parametrize("name", ["anonymous", " Anonymous ", "ANONYMOUS-2", "anonymous-17"])
def test_the_unnamed_labels_are_reserved(tmp_path, name):
    data = write_problems(tmp_path, 1)
    with pytest.raises(InputError, match="reserved for reviews saved without a name"):
        queue.record_review(data, "gen-0000", SCORES, "approved", "", name)
    with pytest.raises(InputError, match="reserved"):
        queue.record_review(data, "gen-0000", SCORES, "approved", "", name, final=True)
    assert not v.verifications_path(data).exists()
    # Names that merely contain the word are ordinary names.
    for ordinary in ("anonymous-ana", "not anonymous", "anonymous2"):
        assert v.clean_name(ordinary) == ordinary


@pytest.mark.parametrize("name", [
    "\u0430nonymous",  # the audit's name: a Cyrillic а
    "\u0430n\u043enym\u043eus", "\u0391\u039d\u039f\u039d\u03a5\u039c\u039fUS",  # Cyrillic о; Greek capitals
    "\uff21\uff2e\uff2f\uff2e\uff39\uff2d\uff2f\uff35\uff33",  # fullwidth
    "\U0001d41a\U0001d427\U0001d428\U0001d427\U0001d432\U0001d426\U0001d428\U0001d42e\U0001d42c",  # bold
    "\u1d00\u0274\u1d0f\u0274\u028f\u1d0d\u1d0f\u1d1c\ua731",  # small capitals
    "ano\u0301nymous", "anonymous\u20102", "anonymous\u22122", "anonymous-\uff12",  # an accent; dashes; a digit
])
def test_names_that_look_like_the_unnamed_labels_are_reserved(tmp_path, name):
    data = write_problems(tmp_path, 1)
    with pytest.raises(InputError, match="reserved for reviews saved without a name"):
        queue.record_review(data, "gen-0000", SCORES, "approved", "", name)
    assert not v.verifications_path(data).exists()


def test_names_are_kept_in_nfkc_and_one_reviewer_is_one_whatever_the_width(tmp_path):
    data = write_problems(tmp_path, 2)
    queue.record_review(data, "gen-0000", SCORES, "approved", "", "\uff21na")  # fullwidth Ａ
    assert json.loads(v.verifications_path(data).read_text())["gen-0000"]["reviewer"] == "Ana"
    # A review an older version saved under the fullwidth name is the same reviewer's: replaced, not doubled.
    stored = json.loads(v.verifications_path(data).read_text())
    stored["gen-0001"] = {"problem_id": "gen-0001", **_legacy("\uff21na"), "reviews": [_legacy("\uff21na")]}
    v.verifications_path(data).write_text(json.dumps(stored))
    queue.record_review(data, "gen-0001", SCORES, "rejected", "", "ana")
    reviews = json.loads(v.verifications_path(data).read_text())["gen-0001"]["reviews"]
    assert [(r["reviewer"], r["status"]) for r in reviews] == [("ana", "rejected")]
    for ordinary in ("\u0410\u043d\u044f", "\u0391\u03b8\u03b7\u03bd\u03ac", "anonymus", "an0nym0us"):
        assert v.clean_name(ordinary) == ordinary  # names in other scripts are names


@pytest.mark.parametrize("scores, missing", [
    ({}, "correctness, clarity, difficulty_match, completeness"),
    ({**SCORES, "clarity": None}, "clarity"),
    ({**SCORES, "clarity": None, "completeness": ""}, "clarity, completeness"),
    ({k: SCORES[k] for k in ("correctness", "clarity")}, "difficulty_match, completeness"),
])
def test_unset_scores_are_refused_by_name_and_nothing_is_written(tmp_path, scores, missing):
    data = write_problems(tmp_path, 1)
    assert ", ".join(v.unscored(scores)) == missing
    with pytest.raises(InputError) as refused:
        queue.record_review(data, "gen-0000", scores, "approved", "", "ana")
    assert str(refused.value) == f"score {missing} (a whole number from 1 to 5) before saving"
    assert not v.verifications_path(data).exists()


def test_two_named_reviewers_both_persist_and_every_reader_sees_both(tmp_path):
    data = write_problems(tmp_path, 2)
    queue.record_review(data, "gen-0000", SCORES, "approved", "ana's", "ana")
    queue.record_review(data, "gen-0000", {**SCORES, "clarity": 1}, "approved", "ben's", "ben")
    entry = json.loads(v.verifications_path(data).read_text())["gen-0000"]
    assert [(r["reviewer"], r["comments"]) for r in entry["reviews"]] == [("ana", "ana's"), ("ben", "ben's")]
    assert entry["reviewer"] == "ben"  # the seed fields hold the latest, as before
    summary = report.summary(data)
    assert summary["reviewers"] == ["ana", "ben"] and summary["reviews"] == 2 and summary["verified"] == 1
    assert [len(row["reviews"]) for row in hub_export.approved_rows(data)] == [2]
    assert [p["problem_id"] for p in json.loads(v.export_approved(data, json.loads(data.read_text())).read_text())] \
        == ["gen-0000"]


def _legacy(reviewer, status="approved", when="2025-01-10T12:00:00", **extra) -> dict:
    review = {"scores": dict(SCORES), "total_score": 4.0, "status": status, "comments": f"by {reviewer!r}",
              "verified_at": when, **extra}
    if reviewer is not None:
        review["reviewer"] = reviewer
    return review


def test_reviews_saved_without_a_name_still_load_each_under_its_own_label(tmp_path):
    data = write_problems(tmp_path, 2)
    # An older version saved unnamed reviews as "anonymous"; a hand-made file may have several, or none named.
    # A reviewer who really called themselves "anonymous-2" keeps that name; the labels go round them.
    reviews = [_legacy("anonymous"), _legacy(None, "rejected", "2025-01-11"), _legacy("ana"),
               _legacy("", "needs_revision", "2025-01-12"), _legacy("anonymous-2")]
    stored = {"gen-0000": {"problem_id": "gen-0000", **reviews[3], "reviewer": "anonymous", "reviews": reviews},
              "gen-0001": {"problem_id": "gen-0001", **_legacy(None)}}  # the seed's format: no reviewer at all
    v.verifications_path(data).write_text(json.dumps(stored))

    parsed, flagged = v.read_all(v.verifications_path(data))
    assert not flagged
    assert [r["reviewer"] for r in parsed["gen-0000"].reviews] == ["anonymous", "anonymous-3", "ana", "anonymous-4",
                                                                    "anonymous-2"]
    assert [r["comments"] for r in parsed["gen-0000"].reviews] == [r["comments"] for r in reviews]  # none hidden
    assert [r["reviewer"] for r in parsed["gen-0001"].reviews] == ["anonymous"]
    summary = report.summary(data)
    assert summary["reviews"] == 6 and summary["verified"] == 2

    # A new reviewer's save keeps every one of them, byte for byte.
    queue.record_review(data, "gen-0000", SCORES, "approved", "", "ben")
    queue.record_review(data, "gen-0001", SCORES, "approved", "", "ben")
    on_disk = json.loads(v.verifications_path(data).read_text())
    assert on_disk["gen-0000"]["reviews"] == [*reviews, on_disk["gen-0000"]["reviews"][-1]]
    assert [r.get("reviewer") for r in on_disk["gen-0001"]["reviews"]] == [None, "ben"]
    assert report.summary(data)["reviews"] == 8
    # gen-0000's reviewers disagree (approved, rejected, needs_revision): disputed, so not exported until adjudicated.
    assert [len(row["reviews"]) for row in hub_export.approved_rows(data)] == [2]
    v.adjudicate(data, v.make_review("gen-0000", SCORES, "approved", "", "cleo"))
    assert {len(row["reviews"]) for row in hub_export.approved_rows(data)} == {2, 6}


def test_the_panel_names_what_is_missing_and_shows_unnamed_reviews_as_such(tmp_path):
    from evalui.ui.review.view import incomplete, reviews_markdown, viewer_name

    full = dict(SCORES)
    assert incomplete("ana", full, "approved") is None
    assert incomplete("  ", full, "approved") == "Not saved. Still needed: your name (reviews are kept per reviewer)."
    assert incomplete("ana", {**full, "clarity": None}, None) == (
        "Not saved. Still needed: a score from 1 to 5 for clarity; a status (approved, rejected or needs revision).")
    assert "kept for reviews saved without a name" in incomplete("anonymous-2", full, "approved")
    assert viewer_name(" Anonymous ") == "" and viewer_name(" ana ") == "ana"  # no name: nobody's own reviews

    data = write_problems(tmp_path, 1)
    v.verifications_path(data).write_text(json.dumps(
        {"gen-0000": {"problem_id": "gen-0000", **_legacy("anonymous"),
                      "reviews": [_legacy("anonymous"), _legacy(None), _legacy("ana")]}}))
    shown = reviews_markdown(v.read_all(v.verifications_path(data))[0]["gen-0000"], True)
    assert "| anonymous |" in shown and "| anonymous-2 |" in shown and "| ana |" in shown
    assert "_anonymous, anonymous-2: saved without a name by an older version; still counted" in shown
