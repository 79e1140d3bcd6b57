"""GAIA metadata (``metadata.jsonl`` or ``metadata.parquet``): task ids, final answers, levels."""

from __future__ import annotations

from pathlib import Path

from evalui.errors import InputError
from evalui.jsonl import check_input_file, iter_jsonl

REQUIRED_FIELDS = ("task_id", "Final answer")


def read_metadata_records(path: str | Path) -> list[tuple[int, dict]]:
    """(line or row number, record) from a metadata.jsonl or metadata.parquet."""
    path = check_input_file(path)
    if path.suffix == ".parquet":
        return list(enumerate(_read_parquet(path), start=1))
    return list(iter_jsonl(path))


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


def _read_parquet(path: Path) -> list[dict]:
    import pandas as pd

    # A parquet file starts and ends with PAR1; checking first gives a plain sentence, not pyarrow's.
    with path.open("rb") as handle:
        head = handle.read(4)
        handle.seek(max(0, path.stat().st_size - 4))
        tail = handle.read(4)
    if head != b"PAR1" or tail != b"PAR1":
        raise InputError("not a parquet file (it lacks the PAR1 markers parquet files begin and end with)",
                         path=str(path))
    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise InputError(f"cannot read parquet ({' '.join(str(exc).split())})", path=str(path)) from None
    frame = frame.astype(object).where(frame.notna(), None)
    return frame.to_dict(orient="records")
