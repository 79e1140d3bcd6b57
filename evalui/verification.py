"""Human reviews of generated problems, saved in ``<data file stem>_verifications.json``.

Several reviewers may save at once, from several browsers or processes: each save takes a file
lock, re-reads the file, changes one entry and replaces the file atomically, so nobody's review
is lost. A file that cannot be read is never overwritten: it is backed up and the save refused.
A review whose scores or status have the wrong type is flagged and not counted, but kept.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from filelock import FileLock

from evalui.errors import InputError
from evalui.scoring.metrics import JUDGE_DIMENSIONS
from evalui.verification_input import FileProblem, read_data_file, read_json

STATUSES = ("approved", "rejected", "needs_revision")
LOCK_TIMEOUT_S = 30


class CorruptVerificationFile(InputError):
    """The reviews file cannot be read; saves are refused until someone repairs it."""

    def __init__(self, problem: FileProblem, backup: Path | None = None):
        self.problem, self.backup = problem, backup
        kept = f"; it was left untouched and copied to {backup.name}" if backup else ""
        super().__init__(f"cannot read the reviews ({problem.detail}){kept}. Repair or move it away before saving.",
                         path=problem.path)


def verifications_path(data_file: str | Path) -> Path:
    data_file = Path(data_file)
    return data_file.with_name(f"{data_file.stem}_verifications.json")


def _score_ok(value) -> bool:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5


def _excerpt(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "…"


def review_problem(problem_id: str, entry) -> str | None:
    """Why a saved review cannot be counted, or None when it is sound."""
    if not isinstance(entry, dict):
        return f"review = {_excerpt(entry)}"
    scores = entry.get("scores")
    if not isinstance(scores, dict):
        return f"scores = {_excerpt(scores)}"
    for dimension in JUDGE_DIMENSIONS:
        if not _score_ok(scores.get(dimension)):
            return f"{dimension} = {_excerpt(scores.get(dimension))}"
    if entry.get("status") not in STATUSES:
        return f"status = {_excerpt(entry.get('status'))}"
    if entry.get("problem_id", problem_id) != problem_id:
        return f"problem_id = {_excerpt(entry.get('problem_id'))}"
    return None


def _read_raw(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        data = read_json(path)
        if not isinstance(data, dict):
            raise FileProblem("not_reviews", path)
    except FileProblem as problem:
        raise CorruptVerificationFile(problem) from None
    return data


def read_reviews(path: str | Path) -> tuple[dict[str, dict], dict[str, str]]:
    """(sound reviews, {problem_id: why it is not counted}) keyed by problem_id; both {} without a file."""
    sound, flagged = {}, {}
    for problem_id, entry in _read_raw(Path(path)).items():
        reason = review_problem(problem_id, entry)
        if reason:
            flagged[problem_id] = reason
        else:
            sound[problem_id] = entry
    return sound, flagged


def read_verifications(path: str | Path) -> dict[str, dict]:
    """The reviews that count, keyed by problem_id; {} when there is no file yet."""
    return read_reviews(path)[0]


def make_review(problem_id: str, scores: dict, status: str, comments: str, reviewer: str) -> dict:
    clean = {}
    for dimension in JUDGE_DIMENSIONS:
        value = scores.get(dimension)
        if not _score_ok(value):
            raise InputError(f"{dimension} must be a whole number from 1 to 5, got {value!r}")
        clean[dimension] = int(value)
    if status not in STATUSES:
        raise InputError(f"status must be one of {', '.join(STATUSES)}, not {status!r}")
    return {
        "problem_id": problem_id,
        "scores": clean,
        "total_score": sum(clean.values()) / len(clean),
        "status": status,
        "comments": comments or "",
        "verified_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "reviewer": (reviewer or "").strip() or "anonymous",
    }


def _write_atomically(path: Path, data) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(data, stream, indent=2, ensure_ascii=False)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def save_review(data_file: str | Path, review: dict) -> dict:
    """Add or replace one review; returns every entry of the file after the save."""
    path = verifications_path(data_file)
    with FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT_S):
        try:
            reviews = _read_raw(path)  # re-read under the lock: other reviewers may have saved
        except CorruptVerificationFile as exc:
            backup = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
            shutil.copy2(path, backup)
            raise CorruptVerificationFile(exc.problem, backup) from None
        reviews[review["problem_id"]] = review  # flagged entries of other problems are kept as they are
        _write_atomically(path, reviews)
    return reviews


def review_progress(problems: list[dict], reviews: dict[str, dict]) -> dict:
    ids = [p["problem_id"] for p in problems]
    reviewed = [reviews[i] for i in ids if i in reviews]
    return {"total": len(ids), "verified": len(reviewed),
            "by_status": {s: sum(1 for r in reviewed if r["status"] == s) for s in STATUSES}}


def judge_scores(judge_file: str | Path) -> dict[str, dict]:
    """{problem_id: {dimension: score}} from a ``<stem>_judge.json``; {} when there is none or it is unusable."""
    try:
        results = read_json(judge_file).get("results", [])
    except (InputError, AttributeError):
        return {}
    judged = {}
    for result in results if isinstance(results, list) else []:
        try:
            scores = {d: result["scores"][d]["score"] for d in JUDGE_DIMENSIONS}
            problem_id = result["problem_id"]
        except (KeyError, TypeError):
            continue
        if isinstance(problem_id, str) and all(isinstance(s, (int, float)) and not isinstance(s, bool)
                                               for s in scores.values()):
            judged[problem_id] = scores
    return judged


def judge_file(data_file: str | Path) -> Path:
    return Path(data_file).with_name(f"{Path(data_file).stem}_judge.json")


def agreement(reviews: dict[str, dict], judged: dict[str, dict], top: int = 5) -> dict:
    """Human versus LLM judge: means per dimension, mean absolute difference, largest disagreements."""
    both = [pid for pid in reviews if pid in judged]
    per_dimension = {}
    for dimension in JUDGE_DIMENSIONS:
        human = [reviews[p]["scores"][dimension] for p in both]
        judge = [judged[p][dimension] for p in both]
        per_dimension[dimension] = {
            "human_mean": sum(human) / len(human) if human else None,
            "judge_mean": sum(judge) / len(judge) if judge else None,
            "mean_abs_diff": sum(abs(h - j) for h, j in zip(human, judge)) / len(both) if both else None,
        }
    gaps = sorted(((sum(abs(reviews[p]["scores"][d] - judged[p][d]) for d in JUDGE_DIMENSIONS) / len(JUDGE_DIMENSIONS), p)
                   for p in both), reverse=True)
    overall = [g for g, _ in gaps]
    return {"compared": len(both), "per_dimension": per_dimension,
            "mean_abs_diff": sum(overall) / len(overall) if overall else None,
            "largest_disagreements": [{"problem_id": p, "mean_abs_diff": g} for g, p in gaps[:top]]}


def export_approved(data_file: str | Path, problems: list[dict]) -> Path:
    """The approved problems, without review metadata, as ``<stem>_approved.json``."""
    reviews = read_verifications(verifications_path(data_file))
    approved = [p for p in problems if reviews.get(p["problem_id"], {}).get("status") == "approved"]
    target = Path(data_file).with_name(f"{Path(data_file).stem}_approved.json")
    _write_atomically(target, approved)
    return target


def summary(data_file: str | Path) -> dict:
    problems = read_data_file(data_file)
    reviews, flagged = read_reviews(verifications_path(data_file))
    ids = {p["problem_id"] for p in problems}
    return {"input": str(data_file), **review_progress(problems, reviews),
            "flagged": [{"problem_id": p, "reason": r} for p, r in flagged.items() if p in ids],
            "agreement": agreement({p: r for p, r in reviews.items() if p in ids}, judge_scores(judge_file(data_file)))}
