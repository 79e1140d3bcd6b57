"""GAIA attachments are inlined in bounded memory and only in part, whatever the file holds.

Each hostile file is inlined in a fresh interpreter, so its peak memory is measured alone. The
seconds each took are printed by bench/responsiveness.py, not asserted (they depend on the machine).
"""
from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest
from waiting import HANG_S

from evalui.benchmarks.gaia.prompt import TEXT_CAP_CHARS

MB = 1024 * 1024
INLINE = """
import json, resource, sys, time
import openpyxl  # imported before the baseline: its cost is not the file's
from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.prompt import user_content
path = sys.argv[1]
question = GaiaQuestion("t1", "What does the file say?", None, "1", file_name=path.rsplit("/", 1)[-1], file_path=path)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
content = user_content(question)
seconds = time.perf_counter() - start
extra_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps({"seconds": seconds, "extra_mb": extra_mb, "content": content}))
"""


def inline_alone(path: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", INLINE, str(path)], capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def small_workbook(path: Path) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "prices"
    for row in (["item", "price"], ["lamp", 20], ["desk", 115.5]):
        sheet.append(row)
    book.save(path)
    return path


def rezip(source: Path, target: Path, replace: dict[str, object]) -> Path:
    """``source`` with some members replaced by streamed chunks: real deflate, real declared sizes."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as new:
        for name in old.namelist():
            if name not in replace:
                new.writestr(name, old.read(name))
        for name, chunks in replace.items():
            with new.open(name, "w", force_zip64=True) as member:
                for chunk in chunks:
                    member.write(chunk)
    return target


def repeated(head: bytes, body: bytes, tail: bytes, total: int):
    yield head
    block = body * max(1, (1 * MB) // len(body))
    for _ in range(total // len(block)):
        yield block
    yield tail


def write_million_cell_workbook(path: Path) -> Path:
    # 200,000 rows of 5 cells written by openpyxl itself: a few MB on disk, 37 MB of sheet XML.
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("big")
    for index in range(200_000):
        sheet.append([index, index * 2, "x", 1.5, True])
    book.save(path)
    return path


def shared_strings_bomb(folder: Path, megabytes: int) -> Path:
    """A small workbook whose shared strings declare ``megabytes`` uncompressed (a few MB deflated)."""
    strings = repeated(b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">',
                       b"<si><t>x</t></si>", b"</sst>", megabytes * MB)
    return rezip(small_workbook(folder / "small.xlsx"), folder / f"strings-{megabytes}.xlsx",
                 {"xl/sharedStrings.xml": strings})


def long_row_bomb(folder: Path) -> Path:
    # A row without cell references may hold any number of cells; openpyxl builds the whole row first.
    head = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            b"<sheetData><row><c><v>7</v></c>")
    row = repeated(head, b"<c><v>1</v></c>", b"</row></sheetData></worksheet>", 60 * MB)
    return rezip(small_workbook(folder / "small.xlsx"), folder / "row.xlsx", {"xl/worksheets/sheet1.xml": row})


def sparse_text_file(path: Path) -> Path:
    with path.open("wb") as handle:
        handle.write("señal\n".encode() * 20_000)
        handle.seek(4 * 1024 * MB)  # a sparse 4 GB file: read whole, it would not fit in memory
        handle.write(b"end")
    return path


@pytest.fixture(scope="module")
def million_cell_workbook(tmp_path_factory) -> Path:
    return write_million_cell_workbook(tmp_path_factory.mktemp("bomb") / "million_cells.xlsx")


def test_million_cell_workbook_is_cut_in_little_memory(million_cell_workbook):
    size = million_cell_workbook.stat().st_size
    assert 1 * MB < size < 10 * MB
    with zipfile.ZipFile(million_cell_workbook) as archive:
        assert archive.getinfo("xl/worksheets/sheet1.xml").file_size > 30 * MB
    result = inline_alone(million_cell_workbook)
    assert result["extra_mb"] < 300
    content = result["content"]
    assert content.startswith("What does the file say?\n\nAttached file million_cells.xlsx:\n```\nSheet big:\n0,0,x,1.5,True\n")
    assert "\n999,1998,x,1.5,True\n" in content
    # Cut before openpyxl parses it (so in bounded time), not read whole and then shortened.
    assert "… (truncated: large sheets were read only in part; sheet big has more than 1000 rows)" in content
    assert len(content) < TEXT_CAP_CHARS + 1000


def test_declared_zip_bomb_is_refused_before_opening(tmp_path):
    # 300 MB of shared strings deflate to about 2 MB; openpyxl would load every one of them.
    bomb = shared_strings_bomb(tmp_path, 300)
    assert bomb.stat().st_size < 5 * MB
    result = inline_alone(bomb)
    assert result["extra_mb"] < 100
    assert "(the spreadsheet is not inlined: it declares 300.0 MB uncompressed, over the 256.0 MB limit)" in result["content"]


def test_huge_shared_strings_part_is_refused(tmp_path):
    content = inline_alone(shared_strings_bomb(tmp_path, 40))["content"]
    assert "not inlined: its part xl/sharedStrings.xml declares 40.0 MB uncompressed, over the 8.0 MB limit" in content


def test_one_row_of_millions_of_cells_stays_bounded(tmp_path):
    result = inline_alone(long_row_bomb(tmp_path))
    assert result["extra_mb"] < 300
    assert "Sheet prices:\n\n… (truncated: large sheets were read only in part)" in result["content"]


def test_huge_text_file_reads_only_its_head(tmp_path):
    path = sparse_text_file(tmp_path / "log.txt")
    result = inline_alone(path)
    assert result["extra_mb"] < 50
    text = result["content"].split("```\n", 1)[1]
    assert text.startswith("señal\nseñal\n")
    assert text.endswith(f"\n… (truncated: the file has {path.stat().st_size} bytes)\n```")
    assert len(text) < TEXT_CAP_CHARS + 100
