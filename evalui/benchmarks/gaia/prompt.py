"""GAIA's official system prompt, and the user message with the task's attachment.

Attachments come from datasets and uploads nobody vetted, so inlining is bounded before anything
is parsed: text files are read up to a fixed number of bytes, and a workbook is checked against
its zip directory and cut down to a bounded copy before openpyxl sees it.
"""

from __future__ import annotations

import base64
import csv
import io
import mimetypes
import re
import zipfile
from pathlib import Path

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.instructions import GAIA_SYSTEM_PROMPT

TEXT_SUFFIXES = {".txt", ".csv", ".json", ".jsonl", ".md", ".py", ".tsv", ".xml", ".html", ".yaml", ".yml"}
# Old .xls needs xlrd, which evalui does not install: such files are named, not inlined.
SPREADSHEET_SUFFIXES = {".xlsx", ".xlsm"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp"}
TEXT_CAP_CHARS = 20_000
# UTF-8 needs at most 4 bytes a character, so this many bytes always cover the character cap.
TEXT_READ_BYTES = 4 * TEXT_CAP_CHARS
IMAGE_CAP_BYTES = 4 * 1024 * 1024

MB = 1024 * 1024
# A GAIA workbook is kilobytes; anything declaring more than this uncompressed is a zip bomb.
XLSX_DECLARED_CAP = 256 * MB
# Parts openpyxl reads whole (shared strings, styles, the workbook): each, and all together.
XLSX_PART_CAP = 8 * MB
XLSX_PARTS_CAP = 32 * MB
XLSX_MAX_MEMBERS = 1000
# Worksheet XML is cut to this many bytes in all (at most 1 MB a sheet): openpyxl builds a whole
# <row> before any cell limit applies, and scans a sheet without <dimension> to its end on opening.
XLSX_SHEETS_BUDGET = 8 * MB
XLSX_SHEET_BUDGET = 1 * MB
XLSX_MAX_SHEETS = 10
XLSX_MAX_ROWS = 1000
XLSX_MAX_COLS = 100

_WORKSHEET = re.compile(r"xl/worksheets/[^/]+\.xml")
_ROW_END = re.compile(rb"</(?:[\w.-]+:)?row\s*>")
_SHEET_DATA = re.compile(rb"<((?:[\w.-]+:)?)sheetData\b[^>]*?(/?)>")


class _NotInlined(Exception):
    """Why a workbook is not inlined, in words for the model and the person reading the run."""


def _text_file(path: Path) -> str:
    size = path.stat().st_size
    with path.open("rb") as handle:
        raw = handle.read(TEXT_READ_BYTES + 1)
    # read_text's universal newlines, kept so small files read exactly as they always did.
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    if len(raw) > TEXT_READ_BYTES:
        return text[:TEXT_CAP_CHARS] + f"\n… (truncated: the file has {size} bytes)"
    if len(text) > TEXT_CAP_CHARS:
        return text[:TEXT_CAP_CHARS] + f"\n… (truncated: the file has {len(text)} characters)"
    return text


def _mb(size: int) -> str:
    return f"{size / MB:.1f} MB"


def _head_of_sheet(source, budget: int) -> tuple[bytes, bool]:
    """The sheet's XML cut after the last whole row within ``budget`` bytes, and whether it was cut."""
    data = source.read(budget + 1)
    if len(data) <= budget:
        return data, False
    data = data[:budget]
    opening = _SHEET_DATA.search(data)
    if opening is None:
        raise _NotInlined(f"a worksheet has more than {_mb(budget)} before its cells")
    prefix, empty = opening.group(1), opening.group(2)
    if empty:
        return data[:opening.end()] + b"</" + prefix + b"worksheet>", True
    ends = [m.end() for m in _ROW_END.finditer(data, opening.end())]
    cut = ends[-1] if ends else opening.end()
    return data[:cut] + b"</" + prefix + b"sheetData></" + prefix + b"worksheet>", True


def _bounded_copy(path: Path) -> tuple[io.BytesIO, bool]:
    """A copy of the workbook that openpyxl reads in bounded time and memory; True if sheets were cut."""
    with zipfile.ZipFile(path) as archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) > XLSX_MAX_MEMBERS:
            raise _NotInlined(f"it has {len(members)} parts, over the {XLSX_MAX_MEMBERS} limit")
        declared = sum(m.file_size for m in members)
        if declared > XLSX_DECLARED_CAP:
            raise _NotInlined(f"it declares {_mb(declared)} uncompressed, over the {_mb(XLSX_DECLARED_CAP)} limit")
        sheets = {m.filename for m in members if _WORKSHEET.fullmatch(m.filename)}
        parts = [m for m in members if m.filename not in sheets]
        for part in parts:
            if part.file_size > XLSX_PART_CAP:
                raise _NotInlined(f"its part {part.filename} declares {_mb(part.file_size)} uncompressed, "
                                  f"over the {_mb(XLSX_PART_CAP)} limit")
        if sum(p.file_size for p in parts) > XLSX_PARTS_CAP:
            raise _NotInlined(f"its parts other than sheets declare over {_mb(XLSX_PARTS_CAP)} uncompressed")
        budget = min(XLSX_SHEET_BUDGET, XLSX_SHEETS_BUDGET // max(1, len(sheets)))
        copy, cut = io.BytesIO(), False
        with zipfile.ZipFile(copy, "w", zipfile.ZIP_STORED) as out:
            for member in members:
                if member.filename in sheets:
                    with archive.open(member) as source:
                        data, was_cut = _head_of_sheet(source, budget)
                    cut = cut or was_cut
                else:
                    data = archive.read(member)  # zipfile never yields more than the declared size
                out.writestr(member.filename, data)
    copy.seek(0)
    return copy, cut


def _cell(value) -> str:
    # One shared string may be referenced by every cell: cap each before it is copied.
    return "" if value is None else str(value)[:TEXT_CAP_CHARS]


def _as_pandas_numbers(rows: list[list]) -> None:
    """Whole numbers in a column that also holds decimals or blanks become floats, as pandas wrote them."""
    body = rows[1:]
    for column in range(max((len(r) for r in body), default=0)):
        values = [row[column] if column < len(row) else None for row in body]
        present = [v for v in values if v is not None]
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)
        if present and numeric and (len(present) < len(values) or any(isinstance(v, float) for v in present)):
            for row in body:
                if column < len(row) and isinstance(row[column], int):
                    row[column] = float(row[column])


def _sheet_csv(sheet, room: int) -> tuple[str, list[str]]:
    """The sheet's first rows and columns as CSV, stopping once it passes ``room`` characters."""
    rows, notes, size, wide = [], [], 0, False
    for number, row in enumerate(sheet.iter_rows(max_row=XLSX_MAX_ROWS + 1, max_col=XLSX_MAX_COLS + 1,
                                                 values_only=True), start=1):
        values = list(row)
        while values and values[-1] is None:
            values.pop()
        if number > XLSX_MAX_ROWS:
            if values:
                notes.append(f"sheet {sheet.title} has more than {XLSX_MAX_ROWS} rows")
            break
        wide = wide or len(values) > XLSX_MAX_COLS
        rows.append(values[:XLSX_MAX_COLS])
        size += sum(len(_cell(v)) + 1 for v in rows[-1])
        if size > room:
            break
    if wide:
        notes.append(f"sheet {sheet.title} has more than {XLSX_MAX_COLS} columns")
    while rows and not rows[-1]:
        rows.pop()
    _as_pandas_numbers(rows)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([_cell(v) for v in row] for row in rows)
    return buffer.getvalue(), notes


def _spreadsheet(path: Path) -> str:
    from openpyxl import load_workbook

    try:
        copy, cut = _bounded_copy(path)
    except _NotInlined as exc:
        return f"(the spreadsheet is not inlined: {exc})"
    except Exception as exc:  # not a zip, a corrupt or encrypted member, an unknown compression
        return f"(the spreadsheet could not be read: it is not a valid .xlsx file: {_one_line(exc)})"
    try:
        workbook = load_workbook(copy, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a broken workbook: name the problem instead
        return f"(the spreadsheet could not be read: {_one_line(exc)})"
    notes = ["large sheets were read only in part"] if cut else []
    blocks, length = [], 0
    try:
        sheets = workbook.worksheets
        for index, sheet in enumerate(sheets):
            if index == XLSX_MAX_SHEETS or length > TEXT_CAP_CHARS:
                notes.append(f"{len(sheets) - index} more sheets not shown")
                break
            text, sheet_notes = _sheet_csv(sheet, TEXT_CAP_CHARS - length)
            blocks.append(f"Sheet {sheet.title}:\n{text}")
            notes.extend(sheet_notes)
            length += len(blocks[-1]) + 2
    except Exception as exc:  # a malformed sheet: keep what was read, say why the rest is missing
        notes.append(f"the rest could not be read ({_one_line(exc)})")
    finally:
        workbook.close()
    text = "\n\n".join(blocks)
    if len(text) > TEXT_CAP_CHARS:
        notes.append(f"the text is longer than {TEXT_CAP_CHARS} characters")
    if notes:
        return text[:TEXT_CAP_CHARS] + f"\n… (truncated: {'; '.join(notes)})"
    return text


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def attachment_text(path: Path) -> str | None:
    """The attachment as bounded text (text files, xlsx), or None for a kind read elsewhere."""
    suffix = path.suffix.lower()
    if suffix in TEXT_SUFFIXES:
        return _text_file(path)
    if suffix in SPREADSHEET_SUFFIXES:
        return _spreadsheet(path)
    return None


def user_content(question: GaiaQuestion, *, images: bool = True) -> str | list[dict]:
    """The user turn: the question, plus the attachment inlined as text, sent as an image, or named."""
    text = question.question
    if not question.file_name:
        return text
    path = Path(question.file_path) if question.file_path else None
    if path is None or not path.is_file():
        return f"{text}\n\nAttached file: {question.file_name} (not available to you)."
    suffix = path.suffix.lower()
    if images and suffix in IMAGE_SUFFIXES and path.stat().st_size <= IMAGE_CAP_BYTES:
        mime = mimetypes.guess_type(path.name)[0] or "image/png"
        data = base64.b64encode(path.read_bytes()).decode()
        return [
            {"type": "text", "text": f"{text}\n\nAttached image: {question.file_name}"},
            {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}},
        ]
    inlined = attachment_text(path)
    if inlined is not None:
        return f"{text}\n\nAttached file {question.file_name}:\n```\n{inlined}\n```"
    return f"{text}\n\nAttached file: {question.file_name} ({path.stat().st_size} bytes; its content cannot be shown here)."


def build_messages(question: GaiaQuestion, *, images: bool = True) -> list[dict]:
    return [{"role": "system", "content": GAIA_SYSTEM_PROMPT},
            {"role": "user", "content": user_content(question, images=images)}]
