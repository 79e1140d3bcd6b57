"""GAIA metadata that expands past evalui's caps is refused before it is read, with one sentence
naming the file: through `evalui gaia score` and through the Score tab's handler."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalui.benchmarks.gaia.metadata import read_metadata
from evalui.errors import InputError

ROWS = 20_000_000


def repeated(value: str, rows: int) -> pa.DictionaryArray:
    """One value ``rows`` times, dictionary-encoded: a few bytes on disk however many rows."""
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int32)), pa.array([value]))


def twenty_million_rows(path: Path) -> Path:
    """A small parquet file (a few hundred KB) whose footer says 20,000,000 rows."""
    chunk = 1_000_000
    table = pa.table({"task_id": repeated("t1", chunk), "Question": repeated("q", chunk),
                      "Final answer": repeated("17", chunk), "Level": repeated("1", chunk)})
    with pq.ParquetWriter(path, table.schema, compression="zstd") as writer:
        for _ in range(ROWS // chunk):
            writer.write_table(table)
    return path


@pytest.fixture()
def submission(tmp_path) -> Path:
    path = tmp_path / "submission.jsonl"
    path.write_text(json.dumps({"task_id": "t1", "model_answer": "17"}) + "\n")
    return path


def test_score_tab_refuses_it_naming_the_file_without_the_server_path(tmp_path, submission, monkeypatch):
    monkeypatch.delenv("EVALUI_ALLOWED_USERS", raising=False)
    from evalui.ui.review.view import explain
    from evalui.ui.tabs.score import score_gaia_file
    from evalui.ui.web.access import guarded

    metadata = twenty_million_rows(tmp_path / "metadata.parquet")
    handler = guarded(4, 0, explain=explain)(score_gaia_file)  # as the Score tab wires it
    figures, *rest = handler(str(submission), str(metadata))
    assert figures.startswith("⚠️ metadata.parquet: the metadata has 20,000,000 records")
    assert str(tmp_path) not in figures


def test_a_list_column_of_millions_of_values_is_refused_from_the_footer(tmp_path):
    metadata = tmp_path / "metadata.parquet"
    values = pa.ListArray.from_arrays(pa.array([0, 3_000_000], type=pa.int32()), repeated("x", 3_000_000))
    pq.write_table(pa.table({"task_id": ["t1"], "Final answer": ["17"], "tags": values}), metadata,
                   compression="zstd")
    with pytest.raises(InputError, match=r"3,000,00\d cells; evalui reads at most 1,000,000"):
        read_metadata(metadata)


def test_metadata_within_the_caps_reads_as_before(tmp_path):
    metadata = tmp_path / "metadata.parquet"
    pq.write_table(pa.table({"task_id": ["a", "b"], "Final answer": ["17", "x"], "Level": [1, None],
                             "Annotator Metadata": [{"Number of steps": "3"}, {"Number of steps": "5"}]}), metadata)
    records = read_metadata(metadata)
    assert [(r["task_id"], r["Final answer"], r["Level"]) for r in records] == [("a", "17", "1"), ("b", "x", None)]
    assert records[0]["Annotator Metadata"] == {"Number of steps": "3"}
