"""Human reviews of generated problems, saved in ``<data file stem>_verifications.json``.

The file stays in the seed's format: an object keyed by problem_id whose entries carry
``problem_id``, ``scores``, ``total_score``, ``status``, ``comments``, ``verified_at`` and
``reviewer``. Those fields hold the problem's final review: the adjudicated one (then
``adjudicated`` is true), or else the latest. Each entry adds ``reviews``: every reviewer's own
review, one per reviewer. An entry without ``reviews`` (the seed's own files) is one review.

Several reviewers may save at once, from several browsers or processes: each save takes a file
lock, re-reads the file, changes one reviewer's review and replaces the file atomically, so
nobody's review is lost. A file that cannot be read is never overwritten: it is backed up and the
save refused. A review whose scores or status have the wrong type is flagged and not counted, but kept.

Every new review names its reviewer and scores every dimension. Reviews that older versions saved
without a name still count, each under its own reserved label (see verification_names).

A review may also answer "is the generated problem better than the reference problem?" in
``better_than_reference`` (yes, no or tie): the human side of the win rate, against the reference the
win-rate judge compared it with (``<stem>_winrate.json``). It is optional, and absent from the seed's format.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from evalui.errors import InputError
from evalui.jsonl import write_json_atomically
from evalui.review.names import UNNAMED, clean_name, reviewer_key, saved_unnamed, unnamed_labels
from evalui.review.uploads import FileProblem, read_json
from evalui.stats.metrics import JUDGE_DIMENSIONS

STATUSES = ("approved", "rejected", "needs_revision")
REVIEW_FIELDS = ("reviewer", "scores", "total_score", "status", "comments", "verified_at")
PREFERENCES = ("yes", "no", "tie")
PREFERENCE = "better_than_reference"  # written only when the reviewer answered it
LOCK_TIMEOUT_S = 30
MAX_COMMENT = 5000


class CorruptVerificationFile(InputError):
    """The reviews file cannot be read; saves are refused until someone repairs it."""

    def __init__(self, problem: FileProblem, backup: Path | None = None):
        self.problem, self.backup = problem, backup
        kept = f"; it was left untouched and copied to {backup.name}" if backup else ""
        super().__init__(f"cannot read the reviews ({problem.detail}){kept}. Repair or move it away before saving.",
                         path=problem.path)


@dataclass
class ProblemReviews:
    """What the file says about one problem: its sound reviews (one per reviewer) and its final review."""

    problem_id: str
    reviews: list[dict] = field(default_factory=list)
    final: dict | None = None
    adjudicated: bool = False

    def by(self, reviewer: str) -> dict | None:
        key = reviewer_key(reviewer)
        return next((r for r in self.reviews if reviewer_key(r["reviewer"]) == key), None)

    @property
    def disputed(self) -> bool:
        """Reviewers gave different statuses and nobody has adjudicated: the final status is open,
        whatever the latest save says."""
        return not self.adjudicated and len({r["status"] for r in self.reviews}) > 1


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
    if not isinstance(entry.get("reviewer", ""), str):
        return f"reviewer = {_excerpt(entry.get('reviewer'))}"
    if entry.get(PREFERENCE) not in (None, *PREFERENCES):
        return f"{PREFERENCE} = {_excerpt(entry.get(PREFERENCE))}"
    return None


def _as_review(item: dict) -> dict:
    review = {k: item[k] for k in REVIEW_FIELDS if k in item}
    review["reviewer"] = str(item.get("reviewer") or "").strip() or UNNAMED
    review["scores"] = {d: int(item["scores"][d]) for d in JUDGE_DIMENSIONS}
    if item.get(PREFERENCE) is not None:
        review[PREFERENCE] = item[PREFERENCE]
    return review


def parse_entry(problem_id: str, entry) -> tuple[ProblemReviews, list[str]]:
    """One entry of the file, as sound reviews and the reasons why others are not counted."""
    parsed, reasons = ProblemReviews(problem_id), []
    raw = entry.get("reviews") if isinstance(entry, dict) else None
    if isinstance(entry, dict) and "reviews" in entry and not isinstance(raw, list):
        reasons.append(f"reviews = {_excerpt(raw)}")
        raw = []
    if raw is None:  # the seed's format: the entry is its one review
        raw = [entry]
    sound = []
    for item in raw:
        reason = review_problem(problem_id, item)
        if reason:
            who = item.get("reviewer") if isinstance(item, dict) and item is not entry else None
            reasons.append(f"{who}: {reason}" if isinstance(who, str) and who else reason)
        else:
            sound.append(item)
    # Unnamed reviews each get a label no named reviewer of this problem holds, so none hides another.
    labels = unnamed_labels({reviewer_key(item["reviewer"]) for item in sound if not saved_unnamed(item)})
    for item in sound:
        review = _as_review(item)
        if saved_unnamed(item):
            review["reviewer"] = next(labels)
        elif parsed.by(review["reviewer"]) is not None:
            continue  # the same reviewer twice (a hand edit): the first one counts
        parsed.reviews.append(review)
    top_is_sound = isinstance(entry, dict) and review_problem(problem_id, entry) is None
    if top_is_sound:
        parsed.final = {"problem_id": problem_id, **_as_review(entry)}
        parsed.adjudicated = entry.get("adjudicated") is True
    elif parsed.reviews:
        latest = max(parsed.reviews, key=lambda r: str(r.get("verified_at", "")))
        parsed.final = {"problem_id": problem_id, **latest}
    if parsed.final is not None:
        parsed.final["disputed"] = parsed.disputed
    return parsed, reasons


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


def read_all(path: str | Path) -> tuple[dict[str, ProblemReviews], dict[str, str]]:
    """({problem_id: its reviews}, {problem_id: why some of its reviews are not counted}); ({}, {}) without a file."""
    parsed, flagged = {}, {}
    for problem_id, entry in _read_raw(Path(path)).items():
        problem, reasons = parse_entry(problem_id, entry)
        if problem.reviews or problem.final:
            parsed[problem_id] = problem
        if reasons:
            flagged[problem_id] = "; ".join(reasons)
    return parsed, flagged


def read_reviews(path: str | Path) -> tuple[dict[str, dict], dict[str, str]]:
    """(final reviews, {problem_id: why a review is not counted}) keyed by problem_id; both {} without a file."""
    parsed, flagged = read_all(path)
    return {p: r.final for p, r in parsed.items() if r.final}, flagged


def read_verifications(path: str | Path) -> dict[str, dict]:
    """The final reviews that count, keyed by problem_id; {} when there is no file yet."""
    return read_reviews(path)[0]


def unscored(scores) -> list[str]:
    """The dimensions left without a score (None, empty, or absent), in the judge's order."""
    scores = scores if isinstance(scores, dict) else {}
    return [d for d in JUDGE_DIMENSIONS if scores.get(d) is None or scores.get(d) == ""]


def make_review(problem_id: str, scores: dict, status: str, comments: str, reviewer: str,
                better_than_reference: str | None = None) -> dict:
    """A checked review by a named reviewer who scored every dimension; an InputError otherwise.
    ``better_than_reference``: yes, no or tie, or None when the reviewer did not compare."""
    reviewer = clean_name(reviewer)
    missing = unscored(scores)
    if missing:
        raise InputError(f"score {', '.join(missing)} (a whole number from 1 to 5) before saving")
    clean = {}
    for dimension in JUDGE_DIMENSIONS:
        value = scores.get(dimension)
        if not _score_ok(value):
            raise InputError(f"{dimension} must be a whole number from 1 to 5, got {value!r}")
        clean[dimension] = int(value)
    if status not in STATUSES:
        raise InputError(f"status must be one of {', '.join(STATUSES)}, not {status!r}")
    comments = comments or ""
    if not isinstance(comments, str) or len(comments) > MAX_COMMENT:
        raise InputError(f"comment must be text of at most {MAX_COMMENT} characters")
    if better_than_reference not in (None, *PREFERENCES):
        raise InputError(f"better than the reference must be one of {', '.join(PREFERENCES)}, "
                         f"not {better_than_reference!r}")
    review = {
        "problem_id": problem_id,
        "scores": clean,
        "total_score": sum(clean.values()) / len(clean),
        "status": status,
        "comments": comments,
        "verified_at": datetime.now(UTC).isoformat(timespec="microseconds"),
        "reviewer": reviewer,
    }
    if better_than_reference is not None:
        review[PREFERENCE] = better_than_reference
    return review


def _change_entry(data_file: str | Path, problem_id: str, change) -> dict:
    """Under the file lock: re-read the file (others may have saved), change one entry, replace the file."""
    path = verifications_path(data_file)
    with FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT_S):
        try:
            entries = _read_raw(path)
        except CorruptVerificationFile as exc:
            backup = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
            shutil.copy2(path, backup)
            raise CorruptVerificationFile(exc.problem, backup) from None
        entries[problem_id] = change(entries.get(problem_id))  # other entries, flagged or not, stay as they are
        write_json_atomically(path, entries)
    return entries


def _review_list(entry) -> list:
    """The entry's reviews as stored; a seed-format entry (or anything else found there) becomes the first one."""
    if entry is None:
        return []
    if isinstance(entry, dict) and isinstance(entry.get("reviews"), list):
        return list(entry["reviews"])
    if isinstance(entry, dict):
        return [{k: v for k, v in entry.items() if k not in ("problem_id", "reviews", "adjudicated")}]
    return [entry]  # not a review at all: kept for a person to repair, never dropped


def _seed_fields(review: dict) -> dict:
    return {k: review[k] for k in ("problem_id", "scores", "total_score", "status", "comments", "verified_at",
                                   "reviewer", PREFERENCE) if k in review}


def save_review(data_file: str | Path, review: dict) -> dict:
    """Add or replace this reviewer's review of one problem; returns every entry of the file after the save."""
    problem_id, key = review["problem_id"], reviewer_key(review["reviewer"])
    own = {k: review[k] for k in (*REVIEW_FIELDS, PREFERENCE) if k in review}

    def change(entry):
        reviews = _review_list(entry)
        at = next((i for i, r in enumerate(reviews) if isinstance(r, dict) and reviewer_key(r.get("reviewer")) == key),
                  None)
        if at is None:
            reviews.append(own)
        else:
            reviews[at] = own
        adjudicated = isinstance(entry, dict) and entry.get("adjudicated") is True \
            and review_problem(problem_id, entry) is None
        kept = (*_seed_fields(review), PREFERENCE, "adjudicated")
        final = {k: entry[k] for k in kept if k in entry} if adjudicated else _seed_fields(review)
        # The seed's fields hold the latest save; ``disputed`` says, in the file itself, when they do not decide.
        statuses = {r.get("status") for r in reviews if isinstance(r, dict)}
        return {**final, "disputed": not adjudicated and len(statuses) > 1, "reviews": reviews}

    return _change_entry(data_file, problem_id, change)


def adjudicate(data_file: str | Path, review: dict) -> dict:
    """Set a problem's final review (the seed fields); the reviewers' own reviews stay as they were."""
    problem_id = review["problem_id"]

    def change(entry):
        reviews = _review_list(entry)
        if not reviews:
            raise InputError(f"{problem_id} has no reviews to adjudicate")
        return {**_seed_fields(review), "adjudicated": True, "disputed": False, "reviews": reviews}

    return _change_entry(data_file, problem_id, change)


def review_progress(problems: list[dict], reviews: dict[str, dict]) -> dict:
    """Problems reviewed, by final status; a disputed problem counts as disputed, under no status."""
    ids = [p["problem_id"] for p in problems]
    reviewed = [reviews[i] for i in ids if i in reviews]
    settled = [r for r in reviewed if not r.get("disputed")]
    return {"total": len(ids), "verified": len(reviewed),
            "by_status": {**{s: sum(1 for r in settled if r["status"] == s) for s in STATUSES},
                          "disputed": len(reviewed) - len(settled)}}


def export_approved(data_file: str | Path, problems: list[dict]) -> Path:
    """The approved problems, without review metadata, as ``<stem>_approved.json``. A disputed problem
    is not approved until someone adjudicates it, even when the latest save approved it."""
    reviews = read_verifications(verifications_path(data_file))
    approved = [p for p in problems if reviews.get(p["problem_id"], {}).get("status") == "approved"
                and not reviews[p["problem_id"]].get("disputed")]
    target = Path(data_file).with_name(f"{Path(data_file).stem}_approved.json")
    write_json_atomically(target, approved)
    return target

