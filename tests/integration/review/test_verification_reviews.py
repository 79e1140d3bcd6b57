"""Several reviewers per problem: reviews keyed by (problem, reviewer), concurrent saves across
processes, the queue and overlap, adjudication, the summary's agreement figures, and
``evalui verify review`` refusing bad values with one line and exit 2."""
from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys

import pytest
from unit.review.test_verification import SCORES, write_problems
from unit.review.test_verification_reviews import _save_all_at_once  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from evalui.review import queue as queue
from evalui.review import report as report
from evalui.review import reviews as v


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
