"""Several reviewers per problem: reviews keyed by (problem, reviewer), concurrent saves across
processes, the queue and overlap, adjudication, the summary's agreement figures, and
``evalui verify review`` refusing bad values with one line and exit 2."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys

import pytest
from test_verification import SCORES, write_problems

from evalui.review import reviews as v
from evalui.review import queue as queue
from evalui.review import report as report
from evalui.errors import InputError

pytestmark = pytest.mark.unit


def _save_all_at_once(data_file: str, reviewer: str, ids: list[str], start) -> None:
    start.wait(60)  # both processes leave the barrier together, then race for the same problems
    for n, problem_id in enumerate(ids):
        scores = {**SCORES, "correctness": 1 + (n + len(reviewer)) % 5}
        queue.record_review(data_file, problem_id, scores, "approved", f"{reviewer} on {problem_id}", reviewer)


def test_twenty_concurrent_saves_by_two_reviewers_in_two_processes_keep_both_reviews(tmp_path):
    data = write_problems(tmp_path, 10)
    ids = [f"gen-{i:04d}" for i in range(10)]
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(2)
    workers = [context.Process(target=_save_all_at_once, args=(str(data), name, ids, start)) for name in ("ana", "ben")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    entries = json.loads(v.verifications_path(data).read_text())
    assert sorted(entries) == ids
    for n, problem_id in enumerate(ids):
        reviews = {r["reviewer"]: r for r in entries[problem_id]["reviews"]}
        assert sorted(reviews) == ["ana", "ben"]  # 20 saves, 20 reviews: nobody's was replaced
        for name in ("ana", "ben"):
            assert reviews[name]["comments"] == f"{name} on {problem_id}"
            assert reviews[name]["scores"]["correctness"] == 1 + (n + len(name)) % 5
        assert entries[problem_id]["reviewer"] in reviews  # the seed fields hold one of them: the latest
        assert {k: entries[problem_id][k] for k in v.REVIEW_FIELDS} == reviews[entries[problem_id]["reviewer"]]
    assert not list(tmp_path.glob(".*.tmp"))


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


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "evalui", "verify", *args], capture_output=True, text=True, timeout=120)


def review_args(data, **changes):
    values = {"--input": str(data), "--problem": "gen-0000", "--reviewer": "ana", "--correctness": "5",
              "--clarity": "4", "--difficulty-match": "3", "--completeness": "4", "--status": "approved", **changes}
    return ["review", *(x for k, val in values.items() if val is not None for x in (k, val))]


def test_cli_review_and_summary_with_alpha_and_kappa(tmp_path):
    data = write_problems(tmp_path, 3)
    (tmp_path / f"{data.stem}_judge.json").write_text(json.dumps({"results": [
        {"problem_id": f"gen-{i:04d}", "scores": {d: {"score": 2 + i, "comment": ""} for d in SCORES}} for i in range(3)]}))
    for reviewer, shift in (("ana", 0), ("ben", 1)):
        for i in range(3):
            done = run_cli(*review_args(data, **{"--problem": f"gen-{i:04d}", "--reviewer": reviewer,
                                                 "--correctness": str(1 + i + shift), "--clarity": str(2 + i),
                                                 "--comment": "<b>fine</b>"}))
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout.splitlines()[-1])["saved"]["reviewer"] == reviewer
    done = run_cli("summary", "--input", str(data))
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout.splitlines()[-1])
    _, parsed, _ = report.file_reviews(data)
    expected = report.reviewer_agreement(parsed, report.judge_scores(report.judge_file(data)))
    assert printed["krippendorff_alpha"] == pytest.approx(expected["krippendorff_alpha"])
    assert isinstance(printed["krippendorff_alpha"], float) and -1 <= printed["krippendorff_alpha"] <= 1
    assert set(printed["alpha_per_dimension"]) == set(SCORES)
    assert {k["reviewer"]: k["problems"] for k in printed["kappa_vs_judge"]} == {"ana": 3, "ben": 3}
    assert printed["reviews"] == 6 and printed["reviewers"] == ["ana", "ben"] and printed["verified"] == 3

    queued = run_cli("queue", "--input", str(data), "--reviewer", "cy")
    assert json.loads(queued.stdout.splitlines()[-1])["needs_review"] == []  # overlap 1: every problem is covered
    assert run_cli("settings", "--input", str(data), "--overlap", "3", "--blind", "on").returncode == 0
    queued = run_cli("queue", "--input", str(data), "--reviewer", "cy")
    assert json.loads(queued.stdout.splitlines()[-1])["count"] == 3


BAD_REVIEWS = {
    "score too high": ({"--clarity": "6"}, "--clarity must be a whole number from 1 to 5, got '6'"),
    "score not whole": ({"--completeness": "4.5"}, "--completeness must be a whole number from 1 to 5"),
    "score text": ({"--correctness": "five"}, "--correctness must be a whole number"),
    "status": ({"--status": "maybe"}, "--status must be one of approved, rejected, needs_revision"),
    "unknown problem": ({"--problem": "gen-9999"}, "no problem 'gen-9999' in this file"),
    "blank reviewer": ({"--reviewer": "  "}, "reviewer needs a name"),
    "control character": ({"--reviewer": "ana\x1b[31m"}, "control characters"),
    "long comment": ({"--comment": "x" * 5001}, "comment must be text of at most 5000 characters"),
    "missing flag": ({"--status": None}, "the following arguments are required: --status"),
    "missing file": ({"--input": "nowhere.json"}, "nowhere.json: no such file"),
}


@pytest.mark.parametrize("case", BAD_REVIEWS)
def test_cli_review_refuses_bad_values_in_one_line_and_writes_nothing(tmp_path, case):
    data = write_problems(tmp_path, 2)
    v.save_review(data, v.make_review("gen-0000", SCORES, "approved", "kept", "ben"))
    before = v.verifications_path(data).read_bytes()
    changes, message = BAD_REVIEWS[case]
    done = run_cli(*review_args(data, **changes))
    assert done.returncode == 2, done.stdout
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr and "usage" not in done.stderr
    assert message in done.stderr and done.stderr.startswith("evalui: error: ")
    assert v.verifications_path(data).read_bytes() == before


def test_cli_review_on_a_corrupt_reviews_file_keeps_it(tmp_path):
    data = write_problems(tmp_path, 2)
    v.verifications_path(data).write_text('{"gen-0000": ')
    done = run_cli(*review_args(data))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "left untouched" in done.stderr
    assert v.verifications_path(data).read_text() == '{"gen-0000": '
    assert len(list(tmp_path.glob("*.corrupt-*"))) == 1
