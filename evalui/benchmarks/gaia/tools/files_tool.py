"""``files``: the task's attachment as text (text, CSV, JSON, xlsx, PDF, docx) or as an image."""

from __future__ import annotations

import base64
import mimetypes

from evalui.benchmarks.gaia.prompt import IMAGE_CAP_BYTES, IMAGE_SUFFIXES, attachment_text
from evalui.benchmarks.gaia.tools.base import Tool, ToolContext, ToolResult
from evalui.benchmarks.gaia.tools.readers import docx_text, pdf_text


def _run(arguments: dict, context: ToolContext) -> ToolResult:
    question = context.question
    if not question.file_name:
        return ToolResult("this task has no attached file", error="no_file")
    asked = arguments.get("name") or question.file_name
    if asked != question.file_name:
        return ToolResult(f"only the task's attachment can be read: {question.file_name}", error="bad_arguments")
    path = context.attachment()
    if path is None:
        return ToolResult(f"the attachment {question.file_name} is not available", error="no_file")
    suffix = path.suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        if not context.images:
            return ToolResult(f"{question.file_name} is an image, and this endpoint does not take images",
                              error="unsupported")
        if path.stat().st_size > IMAGE_CAP_BYTES:
            return ToolResult(f"{question.file_name} is larger than {IMAGE_CAP_BYTES} bytes", error="too_large")
        if context.image_shown:
            return ToolResult(f"{question.file_name} is an image, and it was shown to you already, above.")
        context.image_shown = True
        mime = mimetypes.guess_type(path.name)[0] or "image/png"
        url = f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode()}"
        return ToolResult(f"{question.file_name} is an image: it is shown in the next message.",
                          image={"type": "image_url", "image_url": {"url": url}})
    if suffix == ".pdf":
        return ToolResult(pdf_text(path))
    if suffix == ".docx":
        return ToolResult(docx_text(path))
    text = attachment_text(path)
    if text is None:
        return ToolResult(f"{question.file_name} ({path.stat().st_size} bytes) is not a kind this tool reads; "
                          "try the python tool", error="unsupported")
    return ToolResult(text)


def files_tool() -> Tool:
    return Tool(
        name="files",
        description=("Read the task's attached file: text, CSV, JSON, xlsx, PDF and docx come back as text "
                     "(long files are cut), images are shown to you."),
        parameters={"type": "object", "properties": {"name": {"type": "string",
                                                              "description": "the attachment's file name"}}},
        run=_run,
    )
