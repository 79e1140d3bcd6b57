"""A GAIA metadata parquet whose footer understates its size: a few hundred KB of zstd pages that
decode to most of a gigabyte, with every row group's and column's size patched to 1,000 bytes.
It is refused with one sentence, and no process of evalui's grows past the decoding budget: not
the CLI, not the child that decodes, not the server behind the Score tab's API."""

from __future__ import annotations

import json
import resource
import struct
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from unit.benchmarks.gaia.test_gaia_bounds_files import submission  # noqa: F401  (a fixture)

from evalui.benchmarks.gaia.metadata import MAX_BYTES, read_metadata
from evalui.benchmarks.gaia.parquet_child import DECODE_BUDGET_BYTES
from evalui.errors import InputError

VALUE_BYTES = 300_000
ROWS = 3_000  # 900 MB once decoded, under the row cap
MB = 2**20


def patch_footer(path: Path, size: int = 1000) -> None:
    """Rewrite the footer with every row group's and column chunk's uncompressed size set to ``size``."""
    import fastparquet

    footer = fastparquet.ParquetFile(str(path)).fmd
    for group in footer.row_groups:
        group.total_byte_size = size
        for column in group.columns:
            column.meta_data.total_uncompressed_size = size
    data = path.read_bytes()
    old_length = struct.unpack("<i", data[-8:-4])[0]
    body = data[: len(data) - 8 - old_length]
    new_footer = footer.to_bytes()
    path.write_bytes(body + new_footer + struct.pack("<i", len(new_footer)) + b"PAR1")


@pytest.fixture(scope="module")
def lying_parquet(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("lying") / "metadata.parquet"
    chunk = 100
    table = pa.table({"task_id": [f"t{i}" for i in range(chunk)], "Final answer": ["a" * VALUE_BYTES] * chunk})
    # Plain pages (no dictionary), so that nothing but the pages' own sizes bound what they decode to.
    with pq.ParquetWriter(path, table.schema, compression="zstd", compression_level=19, use_dictionary=False) as writer:
        for _ in range(ROWS // chunk):
            writer.write_table(table)
    patch_footer(path)
    return path


def test_the_footer_lies(lying_parquet):
    meta = pq.ParquetFile(lying_parquet).metadata
    stated = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    assert lying_parquet.stat().st_size < 2 * MB and stated < MAX_BYTES and meta.num_rows == ROWS


def test_reading_it_is_refused_and_this_process_does_not_grow(lying_parquet):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    with pytest.raises(InputError, match=r"metadata\.parquet: the file decodes to more than [\d,.]+ MB of text"):
        read_metadata(lying_parquet)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    assert grown < 64 * MB, f"{grown / MB:.0f} MB"


def test_the_cli_refuses_it_in_one_line_and_stays_within_the_budget(lying_parquet, submission):  # noqa: F811
    # A parent of its own, so that the peak counted is the CLI's and its decoding child's alone.
    measure = ("import json, resource, subprocess, sys\n"
               "done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=300)\n"
               "print(json.dumps({'code': done.returncode, 'stderr': done.stderr,"
               " 'peak': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))\n")
    done = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "evalui", "gaia", "score",
                           "--submission", str(submission), "--metadata", str(lying_parquet)],
                          capture_output=True, text=True, timeout=400)
    report = json.loads(done.stdout)
    assert report["code"] == 2 and "Traceback" not in report["stderr"], report["stderr"][-2000:]
    assert len(report["stderr"].strip().splitlines()) == 1 and str(lying_parquet) in report["stderr"]
    # Python with pyarrow and gradio-free evalui is about 150 MB; the decoding child adds its budget at most.
    assert report["peak"] < 200 * MB + DECODE_BUDGET_BYTES, f"{report['peak'] / MB:.0f} MB"


def test_the_score_tab_api_refuses_it_and_the_server_does_not_grow(app_url, lying_parquet, submission):  # noqa: F811
    from app_client import app_client
    from gradio_client import handle_file

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # the app runs in this process
    client = app_client(app_url, verbose=False)
    outputs = client.predict(handle_file(str(submission)), handle_file(str(lying_parquet)), api_name="/score_gaia_file")
    assert "decodes to more than" in str(outputs[0]) and str(lying_parquet.parent) not in str(outputs[0])
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    assert grown < 64 * MB, f"{grown / MB:.0f} MB"


def test_a_larger_value_than_the_budget_in_one_row_dies_in_the_child_not_the_caller(tmp_path):
    """One page that decompresses to more than the budget at once: the child's cap stops it."""
    path = tmp_path / "metadata.parquet"
    table = pa.table({"task_id": ["t1"], "Final answer": ["a" * (DECODE_BUDGET_BYTES + 64 * MB)]})
    pq.write_table(table, path, compression="zstd", use_dictionary=False, data_page_size=2**30)
    patch_footer(path)
    del table
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    with pytest.raises(InputError, match=r"metadata\.parquet: the parquet file decodes to more than the 256 MB"):
        read_metadata(path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before < 64 * MB
