"""GAIA metadata that expands past evalui's caps is refused before it is read, with one sentence
naming the file: through `evalui gaia score` and through the Score tab's handler."""
from __future__ import annotations

import json
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from unit.benchmarks.gaia.test_gaia_bounds_files import ROWS, repeated, submission, twenty_million_rows  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from evalui.benchmarks.gaia import data
from evalui.benchmarks.gaia.metadata import MAX_ROWS, read_metadata
from evalui.errors import InputError


def run_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalui", *args], capture_output=True, text=True, timeout=300)


def test_gaia_score_refuses_a_parquet_of_twenty_million_rows_from_its_footer(tmp_path, submission):
    metadata = twenty_million_rows(tmp_path / "metadata.parquet")
    assert metadata.stat().st_size < 2 * 2**20 and pq.ParquetFile(metadata).metadata.num_rows == ROWS
    done = run_cli("gaia", "score", "--submission", str(submission), "--metadata", str(metadata))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1
    assert str(metadata) in line and "20,000,000 records" in line and f"at most {MAX_ROWS:,}" in line


def test_a_few_rows_of_one_huge_repeated_value_are_refused_by_their_decoded_size(tmp_path, submission):
    metadata = tmp_path / "metadata.parquet"
    rows = 100
    pq.write_table(pa.table({"task_id": repeated("t" * 10_000_000, rows), "Final answer": repeated("17", rows)}),
                   metadata, compression="zstd")
    assert metadata.stat().st_size < 2**20  # a gigabyte once decoded
    with pytest.raises(InputError, match=r"metadata\.parquet: the file decodes to more than [\d,.]+ MB of text; evalui reads "
                                         r"at most 32 MB"):
        read_metadata(metadata)
    done = run_cli("gaia", "score", "--submission", str(submission), "--metadata", str(metadata))
    assert done.returncode == 2 and "decodes to" in done.stderr and "Traceback" not in done.stderr


def test_jsonl_metadata_and_question_files_past_the_row_cap_are_refused(tmp_path, submission):
    line = json.dumps({"task_id": "t1", "Question": "q", "Final answer": "17", "Level": 1}) + "\n"
    metadata = tmp_path / "metadata.jsonl"
    metadata.write_text(line * (MAX_ROWS + 1))
    done = run_cli("gaia", "score", "--submission", str(submission), "--metadata", str(metadata))
    assert done.returncode == 2 and f"more than {MAX_ROWS:,} records" in done.stderr
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([{"Question": "q", "Final answer": "1"}] * (MAX_ROWS + 1)))
    with pytest.raises(InputError, match=rf"{MAX_ROWS + 1:,} question records; evalui reads at most {MAX_ROWS:,}"):
        data.load_questions_file(questions)
