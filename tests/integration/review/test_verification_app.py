"""The verification panel's endpoints on the real app, through gradio_client: twenty saves by two
reviewers at the same moment, blind mode on the API, and adjudication."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from app_client import app_client, launch_demo
from gradio_client import Client

from evalui.review import queue as queue
from evalui.review import reviews as v
from integration.review.test_verification import write_problems

# Not marked unit: twenty app sessions take about a minute.


@pytest.fixture()
def app_url(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("EVALUI_ALLOWED_USERS", raising=False)
    monkeypatch.delenv(queue.ADJUDICATORS_ENV, raising=False)
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    data = write_problems(folder, 10)
    import app

    demo = app.build_demo()
    demo.queue(default_concurrency_limit=4)
    _, url, _ = launch_demo(demo)
    try:
        yield url, data
    finally:
        demo.close()


def session(url: str, data, reviewer: str, problem_id: str | None = None) -> Client:
    client = app_client(url, verbose=False)
    client.predict(api_name="/verify_files")  # the session's file list, which the file choice must be in
    client.predict(str(data), reviewer, api_name="/verify_open")
    if problem_id:
        client.predict(problem_id, reviewer, api_name="/verify_goto")
    return client


def test_twenty_concurrent_saves_by_two_reviewers_through_the_app(app_url):
    url, data = app_url
    ids = [f"gen-{i:04d}" for i in range(10)]
    # Twenty sessions, each at its own problem; then all twenty press Save at the same moment.
    sessions = [((name, pid), session(url, data, name, pid)) for name in ("ana", "ben") for pid in ids]
    start = threading.Barrier(len(sessions))

    def save(job):
        (name, pid), client = job
        start.wait(60)
        return pid, client.predict(name, 1 + len(name) % 5, 4, 3, 4, "approved", f"{name} on {pid}",
                                   api_name="/verify_save")

    with ThreadPoolExecutor(len(sessions)) as pool:
        for pid, outputs in pool.map(save, sessions):
            assert outputs[0] == f"Saved {pid}."
    entries = json.loads(v.verifications_path(data).read_text())
    assert sorted(entries) == ids
    for pid in ids:
        reviews = {r["reviewer"]: r for r in entries[pid]["reviews"]}
        assert sorted(reviews) == ["ana", "ben"]
        assert all(reviews[n]["comments"] == f"{n} on {pid}" for n in ("ana", "ben"))
    assert not list(data.parent.glob(".*.tmp"))


def test_blind_mode_hides_the_others_until_the_reviewer_has_saved(app_url):
    url, data = app_url
    queue.save_settings(data, 2, True)
    ana = session(url, data, "ana")
    ana.predict("ana", 1, 1, 1, 1, "rejected", "ana-secret-comment", api_name="/verify_save")
    ben = session(url, data, "ben")
    shown = json.dumps(ben.predict("gen-0000", "ben", api_name="/verify_goto"), default=str)
    assert "ana-secret-comment" not in shown and "hidden until you save yours" in shown
    assert "LLM-judge scores are hidden" in shown
    saved = json.dumps(ben.predict("ben", 5, 5, 5, 5, "approved", "", api_name="/verify_save"), default=str)
    assert "ana-secret-comment" in saved  # once ben has saved, he sees ana's review
    # ben's queue: gen-0000 is done (two reviews), so the next needing his review is gen-0001.
    moved = ben.predict("ben", api_name="/verify_next_unverified")
    assert "Problem 2 of 10" in moved[-3]

    cy = session(url, data, "cy")
    listed = cy.predict("cy", api_name="/verify_disputed")
    assert "ana-secret-comment" not in json.dumps(listed, default=str)  # cy reviewed nothing: nothing disputed shown
    listed = ben.predict("ben", api_name="/verify_disputed")
    assert listed[1]["value"] == "gen-0000" and "ana-secret-comment" in listed[2]  # ben has reviewed it: he sees it
    settled = ben.predict("gen-0000", "ben", 4, 4, 4, 4, "approved", "agreed", api_name="/verify_adjudicate")
    assert settled[0] == "Final review of gen-0000 set by ben."
    entry = json.loads(v.verifications_path(data).read_text())["gen-0000"]
    assert entry["adjudicated"] is True and entry["comments"] == "agreed" and len(entry["reviews"]) == 2


def test_the_api_refuses_a_review_without_a_name_or_with_scores_unset(app_url):
    url, data = app_url
    client = session(url, data, "")
    said = client.predict("", 5, 4, 3, 4, "approved", "", api_name="/verify_save")
    assert said[0] == "⚠️ Not saved. Still needed: your name (reviews are kept per reviewer)."
    said = client.predict("ana", None, 4, None, 4, None, "", api_name="/verify_save")
    assert said[0] == ("⚠️ Not saved. Still needed: a score from 1 to 5 for correctness, difficulty match; "
                       "a status (approved, rejected or needs revision).")
    said = client.predict("anonymous", 5, 4, 3, 4, "approved", "", api_name="/verify_save")
    assert "kept for reviews saved without a name" in said[0]
    assert not v.verifications_path(data).exists()
    assert client.predict("ana", 5, 4, 3, 4, "approved", "", api_name="/verify_save")[0] == "Saved gen-0000."
    assert [r["reviewer"] for r in json.loads(v.verifications_path(data).read_text())["gen-0000"]["reviews"]] == ["ana"]


def test_a_pick_of_the_problem_shown_leaves_what_the_reviewer_entered(app_url):
    """A browser may send one "Go to problem" pick twice (CI saw two, half a second apart): the
    second redraws the problem's header and reviews, and leaves the scores, status, comment and
    comparison the reviewer entered since the first as they are ("update" with no value)."""
    url, data = app_url
    ana = session(url, data, "ana")
    first = ana.predict("gen-0003", "ana", api_name="/verify_goto")
    again = ana.predict("gen-0003", "ana", api_name="/verify_goto")
    entered = slice(3, 10)  # after message, problem, judge: four scores, status, comment, comparison
    assert list(first[entered]) == [None, None, None, None, None, "", None]  # drawn: nothing entered yet
    assert all(value == {"__type__": "update"} for value in again[entered])
    assert "Problem 4 of 10" in again[11] and again[1] == first[1]  # the header and problem, drawn again
    moved = ana.predict("gen-0004", "ana", api_name="/verify_goto")
    assert moved[entered] == first[entered]  # another problem is drawn whole


def test_a_repeated_pick_of_the_dispute_shown_leaves_what_the_adjudicator_entered(app_url):
    """The adjudication form, as the review form: a pick of the disputed problem it shows redraws
    that problem's reviews and leaves the scores, status and comment as they are."""
    url, data = app_url
    every = ("correctness", "clarity", "difficulty_match", "completeness")
    for problem_id in ("gen-0002", "gen-0003"):
        queue.record_review(data, problem_id, dict.fromkeys(every, 5), "approved", "looks right", "ana")
        queue.record_review(data, problem_id, dict.fromkeys(every, 1), "rejected", "the answer is wrong", "ben")
    cy = session(url, data, "cy")
    listed = cy.predict("cy", api_name="/verify_disputed")  # as Refresh: the list, its first problem shown
    shown = listed[1]["value"]
    assert shown in ("gen-0002", "gen-0003") and list(listed[3:9]) == [1, 1, 1, 1, "rejected", ""]  # the latest review
    again = cy.predict(shown, "cy", api_name="/verify_adjudicate_show")
    entered = slice(2, 8)  # after message and reviews: four scores, status, comment
    assert "the answer is wrong" in listed[2] and again[1] == listed[2]  # the reviews, drawn both times
    assert all(value == {"__type__": "update"} for value in again[entered])
    other = cy.predict({"gen-0002": "gen-0003", "gen-0003": "gen-0002"}[shown], "cy", api_name="/verify_adjudicate_show")
    assert list(other[entered]) == [1, 1, 1, 1, "rejected", ""]  # another problem: the form drawn whole
