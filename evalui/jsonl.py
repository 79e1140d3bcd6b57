"""Reading JSON and JSON-lines files with errors that name the file and the line; writing a file
so that a reader sees all of it or none.

Input files come from uploads and from people's disks: binary files, other encodings, lines
nested thousands deep and files of gigabytes each get one sentence naming the file, never a
traceback, and nothing is read past a size limit.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from evalui.errors import InputError
from evalui.settings import SettingError, parse

MAX_INPUT_ENV = "EVALUI_MAX_INPUT_MB"
MAX_LINE_BYTES = 8 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"


def max_input_mb() -> float:
    """The largest input file evalui reads, in megabytes: ``EVALUI_MAX_INPUT_MB``, 50 unless set."""
    # Refused rather than defaulted: a limit the operator mistyped must not quietly become 50 MB.
    try:
        return parse("max_input_mb")
    except SettingError as error:
        raise InputError(f"{error}: it is a positive number of megabytes") from None


def check_input_file(path: str | Path) -> Path:
    """``path`` as a Path, once it is known to be a regular file within the size limit."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", path=str(path))
    size, limit = path.stat().st_size, max_input_mb()
    if size > limit * 2**20:
        raise InputError(f"the file is {size / 2**20:.1f} MB, over the {limit:g} MB limit for input "
                         f"files (set {MAX_INPUT_ENV} to change it)", path=str(path))
    return path


def _binary(path: Path, line: int | None = None) -> InputError:
    return InputError("a binary file (it contains NUL bytes), not JSON text", path=str(path), line=line)


def _decode(raw: bytes, path: Path, line: int | None) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if line is None:  # a whole file: say which line the bad byte is on
            line = raw.count(b"\n", 0, exc.start) + 1
            column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        else:
            column = exc.start + 1
        raise InputError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {column}); save it as UTF-8",
                         path=str(path), line=line) from None


def _loads(text: str, path: Path, line: int | None):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg})", path=str(path),
                         line=exc.lineno if line is None else line) from None
    except RecursionError:
        raise InputError("JSON nested too deeply to read", path=str(path), line=line) from None
    except ValueError as exc:  # such as an integer with more digits than Python will convert
        raise InputError(f"malformed JSON ({exc})", path=str(path), line=line) from None
    except MemoryError:
        raise InputError("too large to read in memory", path=str(path), line=line) from None


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line; raise InputError on bad input."""
    path = check_input_file(path)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(f"cannot read it ({exc.strerror})", path=str(path)) from None
    with handle:
        if b"\0" in handle.read(8192):
            raise _binary(path)
        handle.seek(0)
        number = 0
        while raw := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise InputError(f"the line is longer than {MAX_LINE_BYTES // 2**20} MB", path=str(path), line=number)
            if b"\0" in raw:
                raise _binary(path, number)
            line = _decode(raw[len(_BOM):] if number == 1 and raw.startswith(_BOM) else raw, path, number)
            if not line.strip():
                continue
            record = _loads(line, path, number)
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
    path = check_input_file(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read it ({exc.strerror})", path=str(path)) from None
    if b"\0" in raw:
        raise _binary(path)
    value = _loads(_decode(raw.removeprefix(_BOM), path, None), path, None)
    if not isinstance(value, list):
        raise InputError(f"expected a JSON array of {what}", path=str(path))
    return value


def write_text_atomically(path: Path, text: str) -> None:
    """Written beside ``path``, synced and renamed over it: a reader (or a crash) never sees half a file."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_json_atomically(path: Path, data) -> None:
    write_text_atomically(path, json.dumps(data, indent=2, ensure_ascii=False))
