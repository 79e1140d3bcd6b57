"""Decoding a metadata parquet file in a child process whose memory is capped.

A parquet footer states each row group's sizes, and nothing checks that they are true: with
``total_byte_size`` patched to 1000, a 45 KB file of zstd pages decodes to gigabytes. Pages are
decompressed whole and no pyarrow setting caps them, so the only bound that does not trust the
file is the process's own: this module runs as ``python -m``, caps its data segment at what it
holds after its imports plus DECODE_BUDGET_BYTES, then reads the file batch by batch (dictionary
columns kept encoded, their decoded size added up before any row is built). An allocation past the
cap fails here, and the server, which only reads this process's output, never holds more than the
rows themselves.

It prints one JSON object: ``{"rows": [...]}``, or ``{"error": "...", "kind": "..."}``.
"""

from __future__ import annotations

import json
import math
import resource
import sys

DECODE_BUDGET_BYTES = 256 * 2**20
BATCH_ROWS = 64


def _data_segment_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


def cap_memory(budget: int = DECODE_BUDGET_BYTES) -> None:
    """RLIMIT_DATA (heap and anonymous mappings, not the shared libraries) at now plus ``budget``."""
    limit = _data_segment_bytes() + budget
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def decoded_bytes(array) -> int:
    """What ``array`` takes once every dictionary is expanded, computed without expanding it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        return sum(decoded_bytes(chunk) for chunk in array.chunks)
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
        return sum(decoded_bytes(field) for field in array.flatten())
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_map(kind):
        return decoded_bytes(array.flatten()) + len(array) * 8
    return array.nbytes


def _plain(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def read_rows(path: str, max_rows: int, max_bytes: int, max_values: int) -> dict:
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(path)
    meta = parquet.metadata
    groups = [meta.row_group(i) for i in range(meta.num_row_groups)]
    rows = max(meta.num_rows, sum(g.num_rows for g in groups))  # the footer says both: trust the larger
    if rows > max_rows:
        return {"kind": "rows", "count": rows}
    uncompressed = sum(g.total_byte_size for g in groups)
    if uncompressed > max_bytes:
        return {"kind": "bytes", "count": uncompressed, "verb": "holds"}
    values = sum(g.column(i).num_values for g in groups for i in range(g.num_columns))
    if values > max_values:
        return {"kind": "values", "count": values}
    schema = parquet.schema
    byte_columns = [schema.column(i).path for i in range(len(schema)) if schema.column(i).physical_type == "BYTE_ARRAY"]
    parquet = pq.ParquetFile(path, read_dictionary=byte_columns)
    records, decoded = [], 0
    for batch in parquet.iter_batches(batch_size=BATCH_ROWS):
        decoded += sum(decoded_bytes(column) for column in batch.columns)
        if decoded > max_bytes:  # the footer lied: stop at the first batch past the budget
            return {"kind": "bytes", "count": decoded, "verb": "decodes to more than", "partial": True}
        records += [_plain(row) for row in batch.to_pylist()]
        if len(records) > max_rows:
            return {"kind": "rows", "count": len(records), "partial": True}
    return {"rows": records}


def main() -> None:
    path, max_rows, max_bytes, max_values = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    import pyarrow  # noqa: F401  (imported before the cap: the library itself is not the file's cost)
    import pyarrow.compute  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    cap_memory()
    try:
        answer = read_rows(path, max_rows, max_bytes, max_values)
    except MemoryError:
        answer = {"kind": "memory"}
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        message = " ".join(str(exc).split())
        answer = {"kind": "memory"} if "malloc" in message or "memory" in message.lower() else \
            {"kind": "unreadable", "error": message[:500]}
    sys.stdout.write(json.dumps(answer, ensure_ascii=False, default=str))


if __name__ == "__main__":
    main()
