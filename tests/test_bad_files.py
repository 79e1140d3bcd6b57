"""Hostile input files get one line naming the file (and line): from the CLI and the loaders the page uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalui.benchmarks.gaia import data
from evalui.benchmarks.gaia.metadata import read_metadata
from evalui.errors import InputError
from evalui.jsonl import iter_jsonl, read_json_array

pytestmark = pytest.mark.unit

DEEP = 100_000
GOOD_LINE = '{"task_id": "t1", "model_answer": "17"}\n'


def bad_files(folder: Path, name: str) -> dict[str, tuple[Path, str]]:
    """{kind: (file, what its error must say)} for files named ``name`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    made = {}
    binary = folder / "binary" / name
    binary.parent.mkdir()
    binary.write_bytes(bytes(range(256)) * 64)
    made["binary"] = (binary, "a binary file (it contains NUL bytes), not JSON text")
    latin = folder / "latin1" / name
    latin.parent.mkdir()
    latin.write_bytes('{"task_id": "t2", "model_answer": "café"}\n'.encode("latin-1"))
    made["latin1"] = (latin, ":1: not UTF-8 text (byte 0xe9 at column 39)")
    deep = folder / "deep" / name
    deep.parent.mkdir()
    deep.write_text("[" * DEEP + "]" * DEEP + "\n")
    made["deep"] = (deep, ":1: JSON nested too deeply to read")
    return made


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "evalui", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def assert_one_line_naming(done, path: Path, message: str):
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith(f"evalui: error: {path}") and message in lines[0]


@pytest.fixture()
def gaia_metadata(tmp_path):
    path = tmp_path / "metadata.jsonl"
    path.write_text(json.dumps({"task_id": "t1", "Question": "q", "Final answer": "17", "Level": 1}) + "\n"
                    + json.dumps({"task_id": "t2", "Question": "q", "Final answer": "x", "Level": 2}) + "\n")
    return path


@pytest.mark.parametrize("kind", ["binary", "latin1", "deep"])
def test_bfcl_score_bad_results_file(tmp_path, kind):
    path, message = bad_files(tmp_path, "BFCL_v4_simple_python_result.json")[kind]
    done = run_cli("bfcl", "score", "--category", "simple_python", "--results", str(path))
    assert_one_line_naming(done, path, message)


@pytest.mark.parametrize("kind", ["binary", "latin1", "deep"])
def test_gaia_score_bad_submission_and_bad_metadata(tmp_path, gaia_metadata, kind):
    path, message = bad_files(tmp_path / "files", "submission.jsonl")[kind]
    done = run_cli("gaia", "score", "--submission", str(path), "--metadata", str(gaia_metadata))
    assert_one_line_naming(done, path, message)
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD_LINE)
    metadata, message = bad_files(tmp_path / "meta", "metadata.jsonl")[kind]
    done = run_cli("gaia", "score", "--submission", str(good), "--metadata", str(metadata))
    assert_one_line_naming(done, metadata, message)


def test_gaia_score_parquet_that_is_not_parquet(tmp_path, gaia_metadata):
    fake = tmp_path / "metadata.parquet"
    fake.write_bytes(gaia_metadata.read_bytes())
    done = run_cli("gaia", "score", "--submission", str(gaia_metadata), "--metadata", str(fake))
    assert_one_line_naming(done, fake, "not a parquet file")
    broken = tmp_path / "broken" / "metadata.parquet"
    broken.parent.mkdir()
    broken.write_bytes(b"PAR1" + os.urandom(4096) + b"PAR1")
    done = run_cli("gaia", "score", "--submission", str(gaia_metadata), "--metadata", str(broken))
    assert_one_line_naming(done, broken, "cannot read parquet (")


@pytest.mark.parametrize("kind", ["binary", "latin1", "deep"])
def test_verify_summary_bad_input(tmp_path, kind):
    # The verification panel has its own reader (evalui/review/uploads.py), worded its own way.
    path, _ = bad_files(tmp_path, "aime_generated_1.json")[kind]
    done = run_cli("verify", "summary", "--input", str(path))
    assert_one_line_naming(done, path, {"binary": "a binary file", "latin1": "not UTF-8 text", "deep": "nested"}[kind])


def test_input_size_limit_is_configurable(tmp_path, gaia_metadata):
    submission = tmp_path / "submission.jsonl"
    submission.write_text(GOOD_LINE * 2000)  # about 80 KB
    done = run_cli("gaia", "score", "--submission", str(submission), "--metadata", str(gaia_metadata),
                   env={"EVALUI_MAX_INPUT_MB": "0.05"})
    assert_one_line_naming(done, submission, "the file is 0.1 MB, over the 0.05 MB limit for input files "
                                             "(set EVALUI_MAX_INPUT_MB to change it)")
    done = run_cli("gaia", "score", "--submission", str(gaia_metadata), "--metadata", str(gaia_metadata))
    assert done.returncode == 0, done.stderr  # 50 MB by default


def test_lines_and_numbers_past_what_can_be_read(tmp_path):
    long = tmp_path / "long.jsonl"
    long.write_text(GOOD_LINE + '{"model_answer": "' + "x" * (9 * 1024 * 1024) + '"}\n')
    with pytest.raises(InputError, match=r"long\.jsonl:2: the line is longer than 8 MB"):
        list(iter_jsonl(long))
    digits = tmp_path / "digits.json"
    digits.write_text("[\n" + "9" * 5000 + "]")
    with pytest.raises(InputError, match=r"digits\.json: malformed JSON \(Exceeds the limit"):
        read_json_array(digits, "numbers")


def test_byte_order_mark_and_late_bad_bytes(tmp_path):
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + GOOD_LINE.encode())
    assert list(iter_jsonl(bom)) == [(1, {"task_id": "t1", "model_answer": "17"})]
    late = tmp_path / "late.json"
    late.write_bytes(b'[\n  {"a": 1},\n  {"b": "\xff"}\n]')
    with pytest.raises(InputError, match=r"late\.json:3: not UTF-8 text \(byte 0xff at column 10\)"):
        read_json_array(late, "records")
    nul = tmp_path / "nul.jsonl"
    nul.write_bytes(GOOD_LINE.encode() * 300 + b'{"a": "\x00"}\n')
    with pytest.raises(InputError, match=r"nul\.jsonl:301: a binary file"):
        list(iter_jsonl(nul))


@pytest.mark.parametrize("kind", ["binary", "latin1", "deep"])
def test_gaia_loaders_name_the_file(tmp_path, kind):
    path, message = bad_files(tmp_path / "questions", "questions.json")[kind]
    message = message.removeprefix(":1:" if kind == "deep" else "")  # a whole document has no line to name
    with pytest.raises(InputError) as caught:
        data.load_questions_file(path)
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)
    metadata, message = bad_files(tmp_path / "folders", "metadata.jsonl")[kind]
    with pytest.raises(InputError) as caught:
        data.load_folder(metadata.parent, "validation")
    assert str(caught.value).startswith(str(metadata)) and message in str(caught.value)
    with pytest.raises(InputError, match="metadata.jsonl"):
        read_metadata(metadata)
