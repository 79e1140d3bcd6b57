"""Several reviewers per problem: reviews keyed by (problem, reviewer), concurrent saves across
processes, the queue and overlap, adjudication, the summary's agreement figures, and
``evalui verify review`` refusing bad values with one line and exit 2."""
from __future__ import annotations

import json

import pytest

from evalui.errors import InputError
from evalui.review import queue as queue
from evalui.review import report as report
from evalui.review import reviews as v
from unit.review.test_verification import SCORES, write_problems


def _save_all_at_once(data_file: str, reviewer: str, ids: list[str], start) -> None:
    start.wait(60)  # both processes leave the barrier together, then race for the same problems
    for n, problem_id in enumerate(ids):
        scores = {**SCORES, "correctness": 1 + (n + len(reviewer)) % 5}
        queue.record_review(data_file, problem_id, scores, "approved", f"{reviewer} on {problem_id}", reviewer)


def test_a_reviewer_saving_again_replaces_only_their_own_review(tmp_path):
    data = write_problems(tmp_path, 1)
    queue.record_review(data, "gen-0000", SCORES, "approved", "first", "Ana")
    queue.record_review(data, "gen-0000", SCORES, "rejected", "", "ben")
    queue.record_review(data, "gen-0000", {**SCORES, "clarity": 1}, "needs_revision", "second", " ana ")
    parsed, _ = v.read_all(v.verifications_path(data))
    reviews = parsed["gen-0000"].reviews
    assert [(r["reviewer"], r["status"]) for r in reviews] == [("ana", "needs_revision"), ("ben", "rejected")]
    assert parsed["gen-0000"].final["reviewer"] == "ana" and parsed["gen-0000"].final["scores"]["clarity"] == 1


def test_queue_follows_the_overlap_and_adjudication_settles_a_problem(tmp_path, monkeypatch):
    monkeypatch.delenv(queue.ADJUDICATORS_ENV, raising=False)
    data = write_problems(tmp_path, 3)
    ids = [f"gen-{i:04d}" for i in range(3)]
    assert queue.read_settings(data) == {"overlap": 1, "blind": False}
    queue.save_settings(data, 2, True)
    assert queue.read_settings(data) == {"overlap": 2, "blind": True}

    def queue_of(name):
        _, parsed, _ = report.file_reviews(data)
        return queue.needs_review(ids, parsed, name, 2)

    queue.record_review(data, "gen-0000", SCORES, "approved", "", "ana")
    assert queue_of("ana") == ["gen-0001", "gen-0002"] and queue_of("ben") == ids
    queue.record_review(data, "gen-0000", {**SCORES, "correctness": 1}, "rejected", "", "ben")
    assert queue_of("cy") == ["gen-0001", "gen-0002"]  # gen-0000 has its two reviews

    parsed = v.read_all(v.verifications_path(data))[0]
    assert not queue.may_see_others(None, "cy", True) and queue.may_see_others(parsed["gen-0000"], "ben", True)
    assert queue.may_see_others(None, "cy", False)
    summary = report.summary(data)
    assert [d["problem_id"] for d in summary["most_disputed"]] == ["gen-0000"] and summary["disputed_count"] == 1

    queue.record_review(data, "gen-0000", SCORES, "approved", "settled", "lee", final=True)
    entry = json.loads(v.verifications_path(data).read_text())["gen-0000"]
    assert entry["adjudicated"] is True and entry["reviewer"] == "lee" and entry["status"] == "approved"
    assert [r["reviewer"] for r in entry["reviews"]] == ["ana", "ben"]  # the reviewers' own reviews stay
    queue.record_review(data, "gen-0000", SCORES, "rejected", "late", "ben")  # a later review keeps the final one
    entry = json.loads(v.verifications_path(data).read_text())["gen-0000"]
    assert entry["reviewer"] == "lee" and entry["status"] == "approved" and entry["adjudicated"] is True
    summary = report.summary(data)
    assert summary["disputed_count"] == 0 and summary["adjudicated"] == 1

    monkeypatch.setenv(queue.ADJUDICATORS_ENV, "lee")
    with pytest.raises(InputError, match="not an adjudicator"):
        queue.record_review(data, "gen-0000", SCORES, "rejected", "", "ben", final=True)
    assert queue.may_see_others(None, "Lee", True)  # listed adjudicators see every review
    with pytest.raises(InputError, match="no reviews to adjudicate"):
        queue.record_review(data, "gen-0002", SCORES, "approved", "", "lee", final=True)


@pytest.mark.parametrize("overlap, blind", [(0, False), (21, True), (2.5, False), ("2", False), (2, "yes"), (True, False)])
def test_bad_settings_are_refused(tmp_path, overlap, blind):
    data = write_problems(tmp_path, 1)
    with pytest.raises(InputError):
        queue.save_settings(data, overlap, blind)
    assert not queue.settings_path(data).exists()
