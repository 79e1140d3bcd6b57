"""GAIA metadata (``metadata.jsonl`` or ``metadata.parquet``): task ids, final answers, levels.

Metadata comes from uploads and people's disks, so its size is known before it is read: a parquet
file of 194 KB can hold twenty million rows of a repeated value. GAIA's validation split has 165
tasks and its test split 301; evalui reads at most MAX_ROWS records and MAX_BYTES of text. For
parquet, the row and value counts and the uncompressed size come from the file's footer, the
columns are read still dictionary-encoded, and the size they decode to is added up before any row
is built.
"""

from __future__ import annotations

import math
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


def _check_footer(parquet, path: Path) -> list[str]:
    """Refuse from the footer alone; the byte-array columns' paths, to read dictionary-encoded."""
    meta = parquet.metadata
    groups = [meta.row_group(i) for i in range(meta.num_row_groups)]
    rows = max(meta.num_rows, sum(g.num_rows for g in groups))  # the footer says both: trust the larger
    if rows > MAX_ROWS:
        raise _too_many_rows(rows, path)
    uncompressed = sum(g.total_byte_size for g in groups)
    if uncompressed > MAX_BYTES:
        raise _too_large(uncompressed, path)
    values = sum(g.column(i).num_values for g in groups for i in range(g.num_columns))
    if values > MAX_VALUES:
        raise InputError(f"the metadata has {values:,} cells; evalui reads at most {MAX_VALUES:,}", path=str(path))
    schema = parquet.schema
    return [schema.column(i).path for i in range(len(schema)) if schema.column(i).physical_type == "BYTE_ARRAY"]


def _decoded_bytes(array) -> int:
    """What ``array`` takes once every dictionary is expanded, computed without expanding it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        return sum(_decoded_bytes(chunk) for chunk in array.chunks)
    kind = array.type
    if pa.types.is_dictionary(kind):
        values = array.dictionary
        if pa.types.is_binary(values.type) or pa.types.is_string(values.type) or \
                pa.types.is_large_binary(values.type) or pa.types.is_large_string(values.type):
            total = pc.sum(pc.take(pc.binary_length(values), array.indices)).as_py() or 0
        else:
            total = math.ceil(values.nbytes / max(len(values), 1)) * len(array)
        return int(total) + len(array) * 8  # the offsets of the decoded column
    if pa.types.is_struct(kind):
        return sum(_decoded_bytes(field) for field in array.flatten())
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_map(kind):
        return _decoded_bytes(array.flatten()) + len(array) * 8
    return array.nbytes


def _read_parquet(path: Path) -> list[dict]:
    _check_parquet_markers(path)
    import pyarrow.parquet as pq

    try:
        dictionary_paths = _check_footer(pq.ParquetFile(path), path)
        table = pq.read_table(path, read_dictionary=dictionary_paths)
        decoded = sum(_decoded_bytes(column) for column in table.columns)
    except InputError:
        raise
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise InputError(f"cannot read parquet ({' '.join(str(exc).split())})", path=str(path)) from None
    if decoded > MAX_BYTES:
        raise _too_large(decoded, path, "decodes to")
    return [{key: None if isinstance(value, float) and math.isnan(value) else value for key, value in row.items()}
            for row in table.to_pylist()]
