"""Reading JSON-lines files with errors that name the file and the line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from evalui.errors import InputError


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line; raise InputError on bad input."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", path=str(path))
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"malformed JSON ({exc.msg})", path=str(path), line=number) from None
            if not isinstance(record, dict):
                raise InputError("expected a JSON object on this line", path=str(path), line=number)
            yield number, record


def write_jsonl(path: str | Path, records) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def read_json_array(path: str | Path, what: str) -> list:
    """A file holding one JSON array (of ``what``), with errors that name the file and line."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", path=str(path))
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg})", path=str(path), line=exc.lineno) from None
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", path=str(path)) from None
    if not isinstance(value, list):
        raise InputError(f"expected a JSON array of {what}", path=str(path))
    return value
