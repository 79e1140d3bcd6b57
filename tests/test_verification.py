"""The verification file: atomic, locked writes from several reviewers; corrupt files; agreement; CLI."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from evalui import verification as v
from evalui.errors import InputError

SCORES = {"correctness": 5, "clarity": 4, "difficulty_match": 3, "completeness": 4}


def write_problems(folder: Path, n: int) -> Path:
    path = folder / "aime_generated_20260101_000000.json"
    path.write_text(json.dumps([{"problem_id": f"gen-{i:04d}", "problem": f"Problem {i} with $\\frac{{1}}{{{i + 2}}}$",
                                 "answer": i, "solution": "s", "topic": "algebra"} for i in range(n)]))
    return path


def test_review_format_matches_the_seed_plus_reviewer(tmp_path):
    data = write_problems(tmp_path, 2)
    review = v.make_review("gen-0000", SCORES, "approved", "fine", "ana")
    saved = v.save_review(data, review)
    on_disk = json.loads(v.verifications_path(data).read_text())
    assert v.verifications_path(data).name == "aime_generated_20260101_000000_verifications.json"
    assert saved == on_disk
    entry = on_disk["gen-0000"]
    assert set(entry) == {"problem_id", "scores", "total_score", "status", "comments", "verified_at", "reviewer"}
    assert entry["total_score"] == 4.0 and entry["reviewer"] == "ana" and entry["verified_at"].endswith("+00:00")


@pytest.mark.parametrize("scores, status, message", [
    ({**SCORES, "clarity": 6}, "approved", "clarity"), ({**SCORES, "clarity": 2.5}, "approved", "clarity"),
    (SCORES, "maybe", "status"), ({k: SCORES[k] for k in list(SCORES)[:3]}, "approved", "completeness"),
])
def test_bad_reviews_are_refused(scores, status, message):
    with pytest.raises(InputError, match=message):
        v.make_review("gen-0000", scores, status, "", "ana")


def _reviewer(data_file: str, name: str, ids: list[str]) -> None:
    for problem_id in ids:
        v.save_review(data_file, v.make_review(problem_id, SCORES, "approved", name, name))


def test_two_processes_saving_at_once_lose_nothing(tmp_path):
    data = write_problems(tmp_path, 120)
    ids = [f"gen-{i:04d}" for i in range(120)]
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_reviewer, args=(str(data), name, ids[k::2]))
               for k, name in enumerate(["ana", "ben"])]
    for worker in workers:
        worker.start()
    # and a third reviewer in threads of this process, on the same ids as ana, at the same time
    threads = [threading.Thread(target=_reviewer, args=(str(data), "cy", ids[0:40:2])) for _ in range(2)]
    for thread in threads:
        thread.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    for thread in threads:
        thread.join()
    reviews = json.loads(v.verifications_path(data).read_text())
    assert sorted(reviews) == ids
    assert {r["reviewer"] for r in reviews.values()} <= {"ana", "ben", "cy"}
    assert {reviews[i]["reviewer"] for i in ids[1::2]} == {"ben"}
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind


def test_a_corrupt_file_is_kept_and_backed_up(tmp_path):
    data = write_problems(tmp_path, 2)
    target = v.verifications_path(data)
    target.write_text('{"gen-0000": {"status": "approved"')  # truncated
    with pytest.raises(v.CorruptVerificationFile, match="left untouched"):
        v.save_review(data, v.make_review("gen-0001", SCORES, "rejected", "", "ana"))
    assert target.read_text() == '{"gen-0000": {"status": "approved"'
    backups = list(tmp_path.glob(f"{target.name}.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_text() == target.read_text()
    target.write_text('["not", "an", "object"]')
    with pytest.raises(v.CorruptVerificationFile):
        v.read_verifications(target)


def test_agreement_and_export(tmp_path):
    data = write_problems(tmp_path, 3)
    (tmp_path / f"{data.stem}_judge.json").write_text(json.dumps({"summary": {}, "results": [
        {"problem_id": "gen-0000", "scores": {d: {"score": 5, "comment": ""} for d in SCORES}, "total": 5},
        {"problem_id": "gen-0001", "scores": {d: {"score": 1, "comment": ""} for d in SCORES}, "total": 1},
    ]}))
    v.save_review(data, v.make_review("gen-0000", SCORES, "approved", "", "ana"))
    v.save_review(data, v.make_review("gen-0001", SCORES, "rejected", "", "ana"))
    summary = v.summary(data)
    assert summary["verified"] == 2 and summary["total"] == 3
    assert summary["by_status"] == {"approved": 1, "rejected": 1, "needs_revision": 0}
    agreed = summary["agreement"]
    assert agreed["compared"] == 2
    assert agreed["per_dimension"]["correctness"]["mean_abs_diff"] == pytest.approx((0 + 4) / 2)
    assert agreed["largest_disagreements"][0]["problem_id"] == "gen-0001"
    exported = json.loads(v.export_approved(data, json.loads(data.read_text())).read_text())
    assert [p["problem_id"] for p in exported] == ["gen-0000"]

    done = subprocess.run([sys.executable, "-m", "evalui", "verify", "summary", "--input", str(data)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout.splitlines()[-1])
    assert printed["verified"] == 2 and printed["agreement"]["compared"] == 2
