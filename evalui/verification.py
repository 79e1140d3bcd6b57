"""Human reviews of generated problems, saved in ``<data file stem>_verifications.json``.

Several reviewers may save at once, from several browsers or processes: each save takes a file
lock, re-reads the file, changes one entry and replaces the file atomically, so nobody's review
is lost. A file that cannot be read is never overwritten: it is backed up and the save refused.
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

STATUSES = ("approved", "rejected", "needs_revision")
LOCK_TIMEOUT_S = 30


class CorruptVerificationFile(InputError):
    """The verification file is not valid JSON in the expected shape; a backup was kept."""


def verifications_path(data_file: str | Path) -> Path:
    data_file = Path(data_file)
    return data_file.with_name(f"{data_file.stem}_verifications.json")


def _backup(path: Path) -> Path:
    backup = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    shutil.copy2(path, backup)
    return backup


def read_verifications(path: str | Path) -> dict[str, dict]:
    """All saved reviews, keyed by problem_id; {} when there is no file yet."""
    path = Path(path)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
            raise ValueError("expected an object of reviews keyed by problem_id")
    except (ValueError, UnicodeDecodeError) as exc:
        backup = _backup(path)
        raise CorruptVerificationFile(
            f"cannot read the reviews ({exc}); the file was left untouched and copied to {backup.name}. "
            "Repair or move it away before saving.", path=str(path)) from None
    return data


def make_review(problem_id: str, scores: dict, status: str, comments: str, reviewer: str) -> dict:
    clean = {}
    for dimension in JUDGE_DIMENSIONS:
        value = scores.get(dimension)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 5:
            raise InputError(f"{dimension} must be a whole number from 1 to 5, got {value!r}")
        clean[dimension] = value
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


def _write_atomically(path: Path, data: dict) -> None:
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
    """Add or replace one review; returns every review after the save."""
    path = verifications_path(data_file)
    with FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT_S):
        reviews = read_verifications(path)  # re-read under the lock: other reviewers may have saved
        reviews[review["problem_id"]] = review
        _write_atomically(path, reviews)
    return reviews


def review_progress(problems: list[dict], reviews: dict[str, dict]) -> dict:
    ids = [p["problem_id"] for p in problems]
    reviewed = [reviews[i] for i in ids if i in reviews]
    return {"total": len(ids), "verified": len(reviewed),
            "by_status": {s: sum(1 for r in reviewed if r["status"] == s) for s in STATUSES}}


def judge_scores(judge_file: str | Path) -> dict[str, dict]:
    """{problem_id: {dimension: score}} from a ``<stem>_judge.json``; {} when there is none."""
    path = Path(judge_file)
    if not path.is_file():
        return {}
    try:
        results = json.loads(path.read_text(encoding="utf-8")).get("results", [])
    except (json.JSONDecodeError, AttributeError):
        return {}
    return {r["problem_id"]: {d: r["scores"][d]["score"] for d in JUDGE_DIMENSIONS} for r in results
            if isinstance(r, dict) and "problem_id" in r and "scores" in r}


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
    from evalui.benchmarks.aime.run import read_problems

    problems = read_problems(data_file)
    reviews = read_verifications(verifications_path(data_file))
    judged = judge_scores(Path(data_file).with_name(f"{Path(data_file).stem}_judge.json"))
    return {"input": str(data_file), **review_progress(problems, reviews), "agreement": agreement(reviews, judged)}
