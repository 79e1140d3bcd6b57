"""GAIA's official system prompt, and the user message with the task's attachment."""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path

from evalui.benchmarks.gaia.data import GaiaQuestion

# The system prompt of the GAIA paper and leaderboard, unchanged.
GAIA_SYSTEM_PROMPT = (
    "You are a general AI assistant. I will ask you a question. Report your thoughts, and finish your answer "
    "with the following template: FINAL ANSWER: [YOUR FINAL ANSWER]. YOUR FINAL ANSWER should be a number OR "
    "as few words as possible OR a comma separated list of numbers and/or strings. If you are asked for a number, "
    "don't use comma to write your number neither use units such as $ or percent sign unless specified otherwise. "
    "If you are asked for a string, don't use articles, neither abbreviations (e.g. for cities), and write the "
    "digits in plain text unless specified otherwise. If you are asked for a comma separated list, apply the above "
    "rules depending of whether the element to be put in the list is a number or a string."
)

TEXT_SUFFIXES = {".txt", ".csv", ".json", ".jsonl", ".md", ".py", ".tsv", ".xml", ".html", ".yaml", ".yml"}
SPREADSHEET_SUFFIXES = {".xlsx", ".xls"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp"}
TEXT_CAP_CHARS = 20_000
IMAGE_CAP_BYTES = 4 * 1024 * 1024


def _attachment_text(path: Path) -> str | None:
    suffix = path.suffix.lower()
    if suffix in TEXT_SUFFIXES:
        text = path.read_text(encoding="utf-8", errors="replace")
    elif suffix in SPREADSHEET_SUFFIXES:
        import pandas as pd

        try:
            sheets = pd.read_excel(path, sheet_name=None)
        except Exception as exc:  # a missing engine or a broken workbook: name the file instead
            return f"(the spreadsheet could not be read: {exc})"
        text = "\n\n".join(f"Sheet {name}:\n{frame.to_csv(index=False)}" for name, frame in sheets.items())
    else:
        return None
    if len(text) > TEXT_CAP_CHARS:
        text = text[:TEXT_CAP_CHARS] + f"\n… (truncated: the file has {len(text)} characters)"
    return text


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
    inlined = _attachment_text(path)
    if inlined is not None:
        return f"{text}\n\nAttached file {question.file_name}:\n```\n{inlined}\n```"
    return f"{text}\n\nAttached file: {question.file_name} ({path.stat().st_size} bytes; its content cannot be shown here)."


def build_messages(question: GaiaQuestion, *, images: bool = True) -> list[dict]:
    return [{"role": "system", "content": GAIA_SYSTEM_PROMPT},
            {"role": "user", "content": user_content(question, images=images)}]
