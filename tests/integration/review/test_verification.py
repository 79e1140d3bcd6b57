"""The verification file: atomic, locked writes from several reviewers; corrupt files; wrong-typed
reviews; uploads that never replace a file; agreement; CLI."""
from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from unit.review.test_verification import BAD_CONTENT, SCORES, _reviewer, write_problems  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from evalui.review import report as report
from evalui.review import reviews as v


def test_agreement_and_export(tmp_path):
    data = write_problems(tmp_path, 3)
    (tmp_path / f"{data.stem}_judge.json").write_text(json.dumps({"summary": {}, "results": [
        {"problem_id": "gen-0000", "scores": {d: {"score": 5, "comment": ""} for d in SCORES}, "total": 5},
        {"problem_id": "gen-0001", "scores": {d: {"score": 1, "comment": ""} for d in SCORES}, "total": 1},
    ]}))
    v.save_review(data, v.make_review("gen-0000", SCORES, "approved", "", "ana"))
    v.save_review(data, v.make_review("gen-0001", SCORES, "rejected", "", "ana"))
    summary = report.summary(data)
    assert summary["verified"] == 2 and summary["total"] == 3
    assert summary["by_status"] == {"approved": 1, "rejected": 1, "needs_revision": 0, "disputed": 0}
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


def _cli_summary(data: Path):
    return subprocess.run([sys.executable, "-m", "evalui", "verify", "summary", "--input", str(data)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case", BAD_CONTENT)
def test_cli_names_a_bad_data_file_in_one_line(tmp_path, case):
    content, reason = BAD_CONTENT[case]
    data = tmp_path / "aime_generated_bad.json"
    data.write_bytes(content)
    done = _cli_summary(data)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and str(data) in done.stderr and reason in done.stderr


@pytest.mark.parametrize("case", ["binary", "latin-1", "nested-past-the-decoder"])
def test_cli_names_a_bad_reviews_file_in_one_line(tmp_path, case):
    data = write_problems(tmp_path, 2)
    v.verifications_path(data).write_bytes(BAD_CONTENT[case][0])
    done = _cli_summary(data)
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert v.verifications_path(data).name in done.stderr and BAD_CONTENT[case][1] in done.stderr
    assert not list(tmp_path.glob("*.corrupt-*"))  # reading never copies; only a refused save keeps a backup


def test_two_processes_saving_different_problems_at_once_lose_nothing(tmp_path):
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
    assert {reviews[i]["reviewer"] for i in ids[1::2]} == {"ben"}
    assert all([r["reviewer"] for r in reviews[i]["reviews"]] in (["ana"], ["ana", "cy"], ["cy", "ana"])
               for i in ids[0:40:2])
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind
