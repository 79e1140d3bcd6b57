"""GAIA attachments are inlined in bounded memory and only in part, whatever the file holds.

Each hostile file is inlined in a fresh interpreter, so its peak memory is measured alone. The
seconds each took are printed by bench/responsiveness.py, not asserted (they depend on the machine).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.prompt import TEXT_CAP_CHARS, user_content


def inline(path: Path) -> str:
    return user_content(GaiaQuestion("t1", "Q?", None, "1", file_name=path.name, file_path=str(path)))


def test_small_text_files_are_inlined_as_before(tmp_path):
    csv_file = tmp_path / "orders.csv"
    csv_file.write_text("item,units,price\r\nlamp,3,20\r\nchaise,1,€90\r\n", encoding="utf-8")
    assert inline(csv_file) == f"Q?\n\nAttached file orders.csv:\n```\n{csv_file.read_text(encoding='utf-8')}\n```"
    long = tmp_path / "long.md"
    long.write_text("é" * (TEXT_CAP_CHARS + 5), encoding="utf-8")
    expected = "é" * TEXT_CAP_CHARS + f"\n… (truncated: the file has {TEXT_CAP_CHARS + 5} characters)"
    assert inline(long) == f"Q?\n\nAttached file long.md:\n```\n{expected}\n```"


def test_small_workbook_is_inlined_as_pandas_read_it(tmp_path):
    path = tmp_path / "book.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"item": ["lamp", "desk"], "units": [3, 1], "price": [20.5, 115.0]}).to_excel(
            writer, sheet_name="orders", index=False)
        pd.DataFrame({"value": [40, 2]}).to_excel(writer, sheet_name="totals", index=False)
    # What the previous implementation sent: every sheet through pandas, as CSV.
    before = "\n\n".join(f"Sheet {name}:\n{frame.to_csv(index=False)}"
                         for name, frame in pd.read_excel(path, sheet_name=None).items())
    assert inline(path) == f"Q?\n\nAttached file book.xlsx:\n```\n{before}\n```"


def test_broken_and_old_workbooks_are_named(tmp_path):
    fake = tmp_path / "fake.xlsx"
    fake.write_bytes(b"this is not a zip archive")
    assert "(the spreadsheet could not be read: it is not a valid .xlsx file" in inline(fake)
    old = tmp_path / "old.xls"
    old.write_bytes(b"\xd0\xcf\x11\xe0" + b"\0" * 60)
    assert inline(old) == "Q?\n\nAttached file: old.xls (64 bytes; its content cannot be shown here)."
