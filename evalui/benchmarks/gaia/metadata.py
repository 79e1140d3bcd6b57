"""GAIA metadata (``metadata.jsonl`` or ``metadata.parquet``): task ids, final answers, levels.

Metadata comes from uploads and people's disks, so its size is known before it is read: a parquet
file of 194 KB can hold twenty million rows of a repeated value. GAIA's validation split has 165
tasks and its test split 301; evalui reads at most MAX_ROWS records and MAX_BYTES of text. A
parquet file is refused from its footer's counts when they are too large, but a footer can lie, so
the file is decoded in a child process whose memory is capped (``parquet_child``): whatever the
footer says, the server holds no more than the rows it gets back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from evalui.errors import InputError
from evalui.jsonl import check_input_file, iter_jsonl

REQUIRED_FIELDS = ("task_id", "Final answer")
MAX_ROWS = 10_000  # 60 times GAIA's validation split
MAX_BYTES = 32 * 1024 * 1024  # of text, decoded: GAIA's metadata is under 1 MB
MAX_VALUES = 1_000_000  # cells, counting each element of a list column


def _too_many_rows(count: int | str, path: Path) -> InputError:
    shown = f"{count:,}" if isinstance(count, int) else count
    return InputError(f"the metadata has {shown} records; evalui reads at most {MAX_ROWS:,} "
                      "(GAIA's validation split has 165, its test split 301)", path=str(path))


def _too_large(size: int, path: Path, verb: str = "holds") -> InputError:
    return InputError(f"the file {verb} {size / 2**20:,.1f} MB of text; evalui reads at most "
                      f"{MAX_BYTES // 2**20} MB of GAIA questions (GAIA's metadata is under 1 MB)", path=str(path))


def check_text_size(path: Path) -> None:
    """A JSON or JSON-lines file of questions over MAX_BYTES is refused before it is parsed."""
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise _too_large(size, path)


def read_metadata_records(path: str | Path) -> list[tuple[int, dict]]:
    """(line or row number, record) from a metadata.jsonl or metadata.parquet."""
    path = check_input_file(path)
    if path.suffix == ".parquet":
        return list(enumerate(_read_parquet(path), start=1))
    check_text_size(path)
    records = []
    for number, record in iter_jsonl(path):
        if len(records) == MAX_ROWS:
            raise _too_many_rows(f"more than {MAX_ROWS:,}", path)
        records.append((number, record))
    return records


def read_metadata(path: str | Path) -> list[dict]:
    """Records with at least ``task_id``, ``Final answer`` and ``Level`` (None when absent)."""
    numbered = read_metadata_records(path)
    tasks = []
    for line, record in numbered:
        for name in REQUIRED_FIELDS:
            if name not in record or record[name] is None:
                raise InputError(f"missing field {name!r}", path=str(path), line=line)
        record = dict(record)
        record["task_id"] = str(record["task_id"])
        record["Final answer"] = str(record["Final answer"])
        level = record.get("Level")
        record["Level"] = None if level is None else str(level)
        tasks.append(record)
    return tasks


def _check_parquet_markers(path: Path) -> None:
    # A parquet file starts and ends with PAR1; checking first gives a plain sentence, not pyarrow's.
    with path.open("rb") as handle:
        head = handle.read(4)
        handle.seek(max(0, path.stat().st_size - 4))
        tail = handle.read(4)
    if head != b"PAR1" or tail != b"PAR1":
        raise InputError("not a parquet file (it lacks the PAR1 markers parquet files begin and end with)",
                         path=str(path))


PARQUET_READ_LIMIT_S = 120.0  # a bound that only catches a hang: GAIA's metadata decodes in under a second


def _read_parquet(path: Path) -> list[dict]:
    from evalui.benchmarks.gaia.parquet_child import DECODE_BUDGET_BYTES

    _check_parquet_markers(path)
    # The system allocator, so that the child's memory cap is what pyarrow's allocations meet.
    env = {**os.environ, "ARROW_DEFAULT_MEMORY_POOL": "system"}
    try:
        done = subprocess.run([sys.executable, "-m", "evalui.benchmarks.gaia.parquet_child", str(path), str(MAX_ROWS),
                               str(MAX_BYTES), str(MAX_VALUES)], capture_output=True, env=env,
                              timeout=PARQUET_READ_LIMIT_S, stdin=subprocess.DEVNULL)
        answer = json.loads(done.stdout) if done.stdout else {"kind": "memory"}
    except subprocess.TimeoutExpired:
        raise InputError(f"decoding the parquet file took more than {PARQUET_READ_LIMIT_S:g} s", path=str(path)) from None
    except ValueError:
        answer = {"kind": "memory"}  # the child died mid-answer: past its memory cap
    kind = answer.get("kind")
    if kind == "rows":
        raise _too_many_rows(f"more than {MAX_ROWS:,}" if answer.get("partial") else answer["count"], path)
    if kind == "bytes":
        raise _too_large(answer["count"], path, answer.get("verb", "holds"))
    if kind == "values":
        raise InputError(f"the metadata has {answer['count']:,} cells; evalui reads at most {MAX_VALUES:,}",
                         path=str(path))
    if kind == "memory":
        raise InputError(f"the parquet file decodes to more than the {DECODE_BUDGET_BYTES // 2**20} MB evalui gives "
                         "it (its footer understates its size)", path=str(path))
    if kind == "unreadable":
        raise InputError(f"cannot read parquet ({answer.get('error', '')})", path=str(path))
    return answer["rows"]
