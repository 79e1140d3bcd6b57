"""GAIA loading (four sources, both metadata layouts), runs with attachments and agents, exports."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from evalui.benchmarks.gaia import data
from evalui.errors import InputError


def tasks(level_answers):
    return [{"task_id": f"t{i}", "Question": q, "Level": level, "Final answer": a, "file_name": f,
             "Annotator Metadata": {"Number of steps": str(i + 1)}}
            for i, (q, level, a, f) in enumerate(level_answers)]


def write_layout(root: Path, records, *, parquet: bool, split="validation"):
    folder = root / "2023" / split
    folder.mkdir(parents=True)
    if parquet:
        pd.DataFrame(records).to_parquet(folder / "metadata.parquet")
    else:
        (folder / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


@pytest.mark.parametrize("parquet", [False, True], ids=["jsonl", "parquet"])
def test_local_folder_in_both_metadata_layouts(tmp_path, parquet):
    records = tasks([("Q one", 1, "1", ""), ("Q two", 2, "a, b", "notes.txt"), ("Q three", 2, "x", "")])
    folder = write_layout(tmp_path, records, parquet=parquet)
    (folder / "notes.txt").write_text("hello")
    questions = data.load_folder(tmp_path, "validation")
    assert [q.task_id for q in questions] == ["t0", "t1", "t2"]
    assert questions[1].file_path == str((folder / "notes.txt").resolve())
    assert questions[1].steps == 2 and questions[1].final_answer == "a, b"
    assert [q.task_id for q in data.load_folder(tmp_path, "validation", level=2)] == ["t1", "t2"]
    assert len(data.load_folder(tmp_path, "validation", limit=1)) == 1


def test_attachment_outside_the_folder_is_ignored(tmp_path):
    (tmp_path / "secret.txt").write_text("do not read")
    write_layout(tmp_path / "gaia", tasks([("Q", 1, "1", "../../../secret.txt")]), parquet=False)
    [question] = data.load_folder(tmp_path / "gaia", "validation")
    assert question.file_path is None


def test_json_array_questions_file(tmp_path):
    path = tmp_path / "common_questions.json"
    path.write_text(json.dumps([{"question": "What is 2+2?", "Final answer": "4"},
                                {"Question": "Capital of France?", "Final answer": "Paris", "Level": 1}]))
    first, second = data.load_questions_file(path)
    assert first.question == "What is 2+2?" and first.final_answer == "4" and first.task_id == "q0001"
    assert second.level == "1"


@pytest.mark.parametrize(
    "content, message",
    [("[{\"question\": \"x\"", "malformed JSON"), ("{\"question\": \"x\"}", "expected a JSON array"),
     ("[{\"Final answer\": \"4\"}]", 'missing "Question"'), ("[3]", "is not a JSON object")],
)
def test_bad_questions_files_are_named(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message) as caught:
        data.load_questions_file(path)
    assert "bad.json" in str(caught.value)


def test_missing_metadata_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="no metadata.jsonl or metadata.parquet"):
        data.load_folder(tmp_path, "validation")


def test_bundled_sample_loads_offline():
    questions = data.load_bundled_sample()
    assert len(questions) == 6 and {q.level for q in questions} == {"1", "2", "3"}
    assert all(q.has_truth for q in questions)
