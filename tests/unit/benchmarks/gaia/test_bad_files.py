"""Hostile input files get one line naming the file (and line): from the CLI and the loaders the page uses."""
from __future__ import annotations

from pathlib import Path

import pytest

from evalui.benchmarks.gaia import data
from evalui.benchmarks.gaia.metadata import read_metadata
from evalui.errors import InputError
from evalui.jsonl import iter_jsonl, read_json_array

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
