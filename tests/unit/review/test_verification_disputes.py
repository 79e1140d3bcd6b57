"""A problem whose reviewers disagree on its status is disputed until someone adjudicates it: it is
not approved (nor rejected) by whoever saved last, in the counts, the exports and the panel."""

from __future__ import annotations

import json

from evalui.review import export as hub_export
from evalui.review import reviews as v
from evalui.ui.review import view as verify_view
from unit.review.test_verification import SCORES, write_problems


def saved(tmp_path):
    data = write_problems(tmp_path, 2)
    v.save_review(data, v.make_review("gen-0000", SCORES, "rejected", "wrong answer", "ben"))
    v.save_review(data, v.make_review("gen-0000", SCORES, "approved", "fine", "ana"))  # the latest save
    v.save_review(data, v.make_review("gen-0001", SCORES, "approved", "", "ana"))
    v.save_review(data, v.make_review("gen-0001", SCORES, "approved", "", "ben"))
    return data


def test_disagreeing_statuses_make_the_problem_disputed_in_the_file_and_the_counts(tmp_path):
    data = saved(tmp_path)
    entries = json.loads(v.verifications_path(data).read_text())
    assert entries["gen-0000"]["disputed"] is True and entries["gen-0001"]["disputed"] is False
    finals = v.read_verifications(v.verifications_path(data))
    progress = v.review_progress(json.loads(data.read_text()), finals)
    assert progress["by_status"] == {"approved": 1, "rejected": 0, "needs_revision": 0, "disputed": 1}


def test_a_disputed_problem_is_not_exported_as_approved_until_adjudicated(tmp_path):
    data = saved(tmp_path)
    problems = json.loads(data.read_text())
    assert [p["problem_id"] for p in json.loads(v.export_approved(data, problems).read_text())] == ["gen-0001"]
    assert [r["problem_id"] for r in hub_export.approved_rows(data)] == ["gen-0001"]
    v.adjudicate(data, v.make_review("gen-0000", SCORES, "approved", "checked again", "cleo"))
    parsed, _ = v.read_all(v.verifications_path(data))
    assert not parsed["gen-0000"].disputed and parsed["gen-0000"].final["status"] == "approved"
    assert [p["problem_id"] for p in json.loads(v.export_approved(data, problems).read_text())] == ["gen-0000",
                                                                                                  "gen-0001"]
    # A later reviewer's save does not reopen an adjudicated problem.
    v.save_review(data, v.make_review("gen-0000", SCORES, "needs_revision", "", "dan"))
    assert not v.read_all(v.verifications_path(data))[0]["gen-0000"].disputed


def test_the_panel_says_disputed_and_names_each_reviewers_status(tmp_path):
    data = saved(tmp_path)
    parsed, _ = v.read_all(v.verifications_path(data))
    text = verify_view.reviews_markdown(parsed["gen-0000"], True)
    assert "**disputed**" in text and "ana: approved" in text and "ben: rejected" in text
    assert "the latest" not in text
    settled = verify_view.reviews_markdown(parsed["gen-0001"], True)
    assert "disputed" not in settled and "the latest" in settled


def test_the_panel_shows_when_a_review_was_saved_as_a_readable_local_time(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    assert verify_view.readable_time("2025-01-10T12:00:00.123456+00:00") == "2025-01-10 12:00 UTC"
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    assert verify_view.readable_time("2025-01-10T12:00:00.123456+00:00") == "2025-01-10 20:00 CST"
    assert verify_view.readable_time("edited by hand") == "edited by hand"
    monkeypatch.delenv("TZ")
    time.tzset()
