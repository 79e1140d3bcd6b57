"""Files handed to the verification panel and the CLI: generated files and uploads.

Every problem with a file is a FileProblem that names the file and carries a reason code, so the
CLI prints one English line and the page says the same in the visitor's language.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from evalui.errors import InputError
from evalui.jsonl import max_input_mb

# Deeper than any generated or review file; beyond it, copying the value back out could hit
# Python's recursion limit.
MAX_DEPTH = 64
COMPANION_SUFFIXES = ("_verifications.json", "_judge.json", "_winrate.json", "_approved.json",
                      "_review_settings.json")

# English here (the CLI never imports gradio); the page says the same in the visitor's language
# through strings.py's "file.<reason>" keys.
REASONS = {
    "missing": "no such file",
    "too_big": "larger than {mb} MB",
    "binary": "a binary file, not JSON text",
    "not_utf8": "not UTF-8 text",
    "malformed": "malformed JSON ({detail})",
    "too_deep": "JSON nested more than {depth} levels deep",
    "not_problems": "expected a JSON array of problems",
    "problem_fields": "problem {index} needs a text problem_id, a problem and an answer",
    "duplicate_id": "problem_id {problem_id} appears more than once",
    "not_reviews": "expected an object of reviews keyed by problem_id",
    "companion": "a companion file (reviews, judge, win rate or export), not a generated file",
}


class FileProblem(InputError):
    """A file evalui cannot use; ``reason`` (a key of REASONS) lets the page translate it."""

    def __init__(self, reason: str, path: str | Path, *, line: int | None = None, **fields):
        self.reason, self.fields = reason, fields
        self.detail = REASONS[reason].format(**fields)
        super().__init__(self.detail, path=str(path), line=line)


def is_companion(path: str | Path) -> bool:
    return Path(path).name.endswith(COMPANION_SUFFIXES)


def _too_deep(value, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def read_json(path: str | Path, *, shown: str | None = None) -> object:
    """One JSON document; a FileProblem naming ``shown`` (default: the path) when it is unusable."""
    path, shown = Path(path), shown or str(path)
    if not path.is_file():
        raise FileProblem("missing", shown)
    if path.stat().st_size > max_input_mb() * 2**20:
        raise FileProblem("too_big", shown, mb=f"{max_input_mb():g}")
    raw = path.read_bytes()
    if b"\x00" in raw:
        raise FileProblem("binary", shown)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FileProblem("not_utf8", shown) from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileProblem("malformed", shown, line=exc.lineno, detail=exc.msg) from None
    except RecursionError:
        raise FileProblem("too_deep", shown, depth=MAX_DEPTH) from None
    if isinstance(value, (dict, list)) and _too_deep(value, MAX_DEPTH):
        raise FileProblem("too_deep", shown, depth=MAX_DEPTH)
    return value


def read_data_file(path: str | Path, *, shown: str | None = None) -> list[dict]:
    """A generated file: a JSON array of problems, each with a unique text problem_id, a problem and an answer."""
    shown = shown or str(path)
    if is_companion(shown):
        raise FileProblem("companion", shown)
    problems = read_json(path, shown=shown)
    if not isinstance(problems, list):
        raise FileProblem("not_problems", shown)
    seen = set()
    for index, problem in enumerate(problems, start=1):
        if (not isinstance(problem, dict) or not {"problem_id", "problem", "answer"} <= set(problem)
                or not isinstance(problem["problem_id"], str)):
            raise FileProblem("problem_fields", shown, index=index)
        if problem["problem_id"] in seen:
            raise FileProblem("duplicate_id", shown, problem_id=problem["problem_id"])
        seen.add(problem["problem_id"])
    return problems


def upload_name(name: str) -> str:
    """The name an upload is stored under: letters, digits, ``._-`` only, ending in .json."""
    clean = re.sub(r"[^A-Za-z0-9._-]", "_", Path(name).name)[:100].lstrip(".") or "upload.json"
    return clean if clean.lower().endswith(".json") else clean + ".json"


def store_upload(source: str | Path, name: str, folder: Path) -> Path:
    """Check an uploaded generated file, then copy it into ``folder`` under a name nothing uses yet.

    An existing file is never replaced, nor is a name taken whose reviews or other companions
    already exist (the upload would inherit them).
    """
    clean = upload_name(name)
    read_data_file(source, shown=clean)
    folder.mkdir(parents=True, exist_ok=True)
    stem = clean[: -len(".json")]
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".upload-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream, open(source, "rb") as original:
            shutil.copyfileobj(original, stream)
        for n in range(1, 10_000):
            target = folder / (clean if n == 1 else f"{stem}-{n}.json")
            taken = [target, *(target.with_name(f"{target.stem}{s}") for s in COMPANION_SUFFIXES),
                     target.with_name(f"{target.stem}_verifications.json.lock")]
            if any(p.exists() for p in taken):
                continue
            try:
                os.link(temporary, target)  # fails if the name appeared meanwhile; never replaces
            except FileExistsError:
                continue
            return target
        raise InputError("no free name left for this upload", path=clean)
    finally:
        Path(temporary).unlink(missing_ok=True)
