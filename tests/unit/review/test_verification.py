"""The verification file: atomic, locked writes from several reviewers; corrupt files; wrong-typed
reviews; uploads that never replace a file; agreement; CLI."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalui.errors import InputError
from evalui.review import report as report
from evalui.review import reviews as v
from evalui.review import uploads as uploads_module
from evalui.review.uploads import FileProblem

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
    assert set(entry) == {"problem_id", "scores", "total_score", "status", "comments", "verified_at", "reviewer",
                          "reviews", "disputed"}
    assert entry["disputed"] is False  # one reviewer: nothing to dispute
    assert entry["total_score"] == 4.0 and entry["reviewer"] == "ana" and entry["verified_at"].endswith("+00:00")
    assert entry["reviews"] == [{k: entry[k] for k in v.REVIEW_FIELDS}]


# The example of HelloAgents chapter 12 (12.4.6), as its panel writes it: no reviewer, no reviews list.
SEED_FILE = {"gen_aime_1": {"problem_id": "gen_aime_1",
                            "scores": {"correctness": 5, "clarity": 4, "difficulty_match": 4, "completeness": 5},
                            "total_score": 4.5, "status": "approved",
                            "comments": "Problem quality is very good, logic is rigorous",
                            "verified_at": "2025-01-10T12:00:00"}}


def test_a_seed_format_file_is_read_as_one_review_and_kept_when_a_second_reviewer_saves(tmp_path):
    data = tmp_path / "aime_generated_seed.json"
    data.write_text(json.dumps([{"problem_id": "gen_aime_1", "problem": "p", "answer": 7}]))
    v.verifications_path(data).write_text(json.dumps(SEED_FILE))
    assert v.read_verifications(v.verifications_path(data))["gen_aime_1"]["status"] == "approved"
    parsed, flagged = v.read_all(v.verifications_path(data))
    assert not flagged and [r["reviewer"] for r in parsed["gen_aime_1"].reviews] == ["anonymous"]
    assert report.summary(data)["verified"] == 1

    v.save_review(data, v.make_review("gen_aime_1", SCORES, "rejected", "", "ben"))
    entry = json.loads(v.verifications_path(data).read_text())["gen_aime_1"]
    first = {k: entry["reviews"][0][k] for k in SEED_FILE["gen_aime_1"] if k != "problem_id"}
    assert first == {k: val for k, val in SEED_FILE["gen_aime_1"].items() if k != "problem_id"}  # nothing lost
    assert entry["reviews"][1]["reviewer"] == "ben" and entry["status"] == "rejected"  # the latest is the final


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


def test_wrong_typed_scores_are_flagged_and_not_counted(tmp_path):
    data = write_problems(tmp_path, 8)
    good = v.make_review("gen-0000", SCORES, "approved", "", "ana")
    wrong = {"gen-0001": {**SCORES, "correctness": "5"}, "gen-0002": {**SCORES, "clarity": 7},
             "gen-0003": {**SCORES, "completeness": None}, "gen-0004": {**SCORES, "correctness": [5]},
             "gen-0005": {**SCORES, "clarity": True}}
    reviews = {"gen-0000": good, **{pid: {**good, "problem_id": pid, "scores": s} for pid, s in wrong.items()},
               "gen-0006": {**good, "problem_id": "gen-0006", "status": "maybe"}, "gen-0007": "approved"}
    v.verifications_path(data).write_text(json.dumps(reviews))

    summary = report.summary(data)
    assert summary["verified"] == 1 and summary["by_status"]["approved"] == 1
    reasons = {f["problem_id"]: f["reason"] for f in summary["flagged"]}
    assert reasons == {"gen-0001": 'correctness = "5"', "gen-0002": "clarity = 7", "gen-0003": "completeness = null",
                       "gen-0004": "correctness = [5]", "gen-0005": "clarity = true", "gen-0006": 'status = "maybe"',
                       "gen-0007": 'review = "approved"'}
    assert [p["problem_id"] for p in json.loads(v.export_approved(data, json.loads(data.read_text())).read_text())] \
        == ["gen-0000"]
    # A save replaces its own entry and leaves the flagged ones as they were, for a person to repair.
    v.save_review(data, v.make_review("gen-0001", SCORES, "rejected", "", "ben"))
    on_disk = json.loads(v.verifications_path(data).read_text())
    assert on_disk["gen-0001"]["scores"] == SCORES and on_disk["gen-0002"]["scores"]["clarity"] == 7
    assert report.summary(data)["verified"] == 2
    assert on_disk["gen-0001"]["reviews"][0]["scores"]["correctness"] == "5"  # the bad review is kept, not counted


BAD_CONTENT = {
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a binary file"),
    "latin-1": ('[{"problem_id": "café", "problem": "p", "answer": 1}]'.encode("latin-1"), "not UTF-8 text"),
    "nested-past-the-decoder": (b"[" * 100_000 + b"]" * 100_000, "nested more than 64 levels"),
    "nested-past-the-limit": (b"[" * 200 + b"]" * 200, "nested more than 64 levels"),
    "object": (b'{"problems": []}', "expected a JSON array of problems"),
    "repeated-id": (json.dumps([{"problem_id": "a", "problem": "p", "answer": 1}] * 2).encode(), "a appears more"),
    "numeric-id": (json.dumps([{"problem_id": 7, "problem": "p", "answer": 1}]).encode(), "text problem_id"),
}


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_an_upload_never_replaces_a_file(tmp_path):
    source = write_problems(tmp_path, 2)
    uploads = tmp_path / "uploads"
    first = uploads_module.store_upload(source, "my file.json", uploads)
    assert first == uploads / "my_file.json" and first.read_bytes() == source.read_bytes()
    v.save_review(first, v.make_review("gen-0000", SCORES, "approved", "", "ana"))
    before = _tree(uploads)
    second = uploads_module.store_upload(source, "my file.json", uploads)
    assert second.name == "my_file-2.json" and _tree(uploads) == {**before, "my_file-2.json": source.read_bytes()}
    # A name whose reviews already exist is taken too: the upload would inherit someone's reviews.
    first.unlink()
    assert uploads_module.store_upload(source, "my_file.json", uploads).name == "my_file-3.json"
    assert not first.exists()
    # The name cannot leave the folder, and always ends in .json.
    assert uploads_module.store_upload(source, "../../etc/passwd", uploads) == uploads / "passwd.json"
    assert not list(uploads.glob(".upload-*"))


@pytest.mark.parametrize("name", ["x_verifications.json", "x_judge.json", "x_winrate.json", "x_approved.json",
                                  "my_file_verifications.json"])
def test_companion_files_cannot_be_uploaded(tmp_path, name):
    source = tmp_path / "companion.json"
    source.write_text(json.dumps([{"problem_id": "a", "problem": "p", "answer": 1}]))
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "my_file_verifications.json").write_text('{"kept": 1}')
    before = _tree(uploads)
    with pytest.raises(FileProblem, match="companion") as refused:
        uploads_module.store_upload(source, name, uploads)
    assert refused.value.path == name and _tree(uploads) == before


@pytest.mark.parametrize("case", ["binary", "latin-1", "nested-past-the-decoder", "object", "repeated-id"])
def test_a_bad_upload_is_refused_before_it_is_copied(tmp_path, case):
    source = tmp_path / "incoming.json"
    source.write_bytes(BAD_CONTENT[case][0])
    with pytest.raises(FileProblem, match=BAD_CONTENT[case][1]) as refused:
        uploads_module.store_upload(source, "upload.json", tmp_path / "uploads")
    assert refused.value.path == "upload.json"  # the page shows this name, never the server's temporary path
    assert not (tmp_path / "uploads").exists() or not any((tmp_path / "uploads").iterdir())


def test_an_upload_over_the_size_cap_is_refused_unread(tmp_path):
    source = tmp_path / "huge.json"
    with source.open("wb") as stream:
        stream.truncate(50 * 2**20 + 1)  # sparse: no need to write 50 MB
    with pytest.raises(FileProblem, match="larger than 50 MB"):
        uploads_module.store_upload(source, "huge.json", tmp_path / "uploads")


def test_the_page_says_each_file_problem_as_the_cli_does():
    from evalui.ui.i18n.strings import STRINGS

    for reason, english in uploads_module.REASONS.items():
        assert STRINGS[f"file.{reason}"][0] == english
        assert STRINGS[f"file.{reason}"][1] and STRINGS[f"file.{reason}"][1] != english


def test_the_panel_lists_generated_files_and_uploads_but_no_companion(monkeypatch, tmp_path):
    from evalui.ui.review.view import file_choices

    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    folder, uploads = tmp_path / "runs" / "gen", tmp_path / "uploads"
    folder.mkdir(parents=True)
    uploads.mkdir()
    data = write_problems(folder, 1)
    for suffix in uploads_module.COMPANION_SUFFIXES:
        (folder / f"{data.stem}{suffix}").write_text("{}")
        (uploads / f"mine{suffix}").write_text("{}")
    (uploads / "mine.json").write_text("[]")
    assert sorted(label for label, _ in file_choices()) == [f"gen/{data.name}", "uploads/mine.json"]
