"""Bounded readers for the attachments the text readers in ``prompt`` do not cover: PDF and docx.

Both formats come from nobody vetted. A docx is a zip: its directory is checked before python-docx
opens it. A PDF is read page by page with pypdf, stopping at a page count and a text size.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from evalui.benchmarks.gaia.prompt import TEXT_CAP_CHARS, _one_line

MB = 1024 * 1024
PDF_MAX_PAGES = 50
DOCX_DECLARED_CAP = 64 * MB
DOCX_MAX_MEMBERS = 2000


def _cut(text: str, notes: list[str]) -> str:
    if len(text) > TEXT_CAP_CHARS:
        notes.append(f"the text is longer than {TEXT_CAP_CHARS} characters")
        text = text[:TEXT_CAP_CHARS]
    return text + (f"\n… (truncated: {'; '.join(notes)})" if notes else "")


def pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    try:
        reader = PdfReader(str(path))
        pages = reader.pages
        count = len(pages)
    except Exception as exc:  # pypdf raises many kinds for a broken file: name the problem instead
        return f"(the PDF could not be read: {_one_line(exc)})"
    blocks, notes, size = [], [], 0
    for number in range(min(count, PDF_MAX_PAGES)):
        try:
            text = pages[number].extract_text() or ""
        except Exception as exc:
            notes.append(f"page {number + 1} could not be read ({_one_line(exc)})")
            continue
        blocks.append(f"--- page {number + 1} ---\n{text}")
        size += len(blocks[-1])
        if size > TEXT_CAP_CHARS:
            break
    if count > PDF_MAX_PAGES:
        notes.append(f"only the first {PDF_MAX_PAGES} of {count} pages were read")
    return _cut("\n".join(blocks), notes)


def docx_text(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            declared = sum(m.file_size for m in members)
        if len(members) > DOCX_MAX_MEMBERS or declared > DOCX_DECLARED_CAP:
            return f"(the document is not read: it declares {len(members)} parts and {declared // MB} MB uncompressed)"
        from docx import Document

        document = Document(str(path))
    except Exception as exc:
        return f"(the document could not be read: it is not a valid .docx file: {_one_line(exc)})"
    lines, size = [], 0
    for paragraph in document.paragraphs:
        lines.append(paragraph.text)
        size += len(paragraph.text) + 1
        if size > TEXT_CAP_CHARS:
            return _cut("\n".join(lines), [])
    for index, table in enumerate(document.tables, start=1):
        lines.append(f"--- table {index} ---")
        for row in table.rows:
            lines.append(",".join(cell.text for cell in row.cells))
            size += len(lines[-1]) + 1
            if size > TEXT_CAP_CHARS:
                return _cut("\n".join(lines), [])
    return _cut("\n".join(lines), [])
