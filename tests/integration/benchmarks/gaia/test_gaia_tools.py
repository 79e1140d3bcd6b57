"""The agent's tools on real files, the plain-text protocol, the web tool offline, and the source option."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from peers import settings_for

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
from evalui.benchmarks.gaia.spec import GaiaOptions
from evalui.benchmarks.gaia.tools.base import ToolContext
from evalui.benchmarks.gaia.tools.files_tool import files_tool
from evalui.run import lifecycle
from evalui.sandbox.base import Limits
from support.openai_peer import (
    ScriptedPeer,
    completion,
    error,
    first_user_text,
    tool_call_text,
    tool_outputs,
)


def pdf_with_text(path: Path, text: str) -> None:
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject(
        {NameObject("/F1"): writer._add_object(font)})})
    stream = DecodedStreamObject()
    stream.set_data(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode())
    page[NameObject("/Contents")] = writer._add_object(stream)
    with path.open("wb") as handle:
        writer.write(handle)


def read_attachment(path: Path, images: bool = True):
    question = GaiaQuestion("t", "q", "a", "1", path.name, str(path))
    return files_tool().run({}, ToolContext(question, Limits(), images=images))


def test_files_tool_reads_pdf_docx_xlsx_csv_json_and_images(tmp_path):
    pdf_with_text(tmp_path / "report.pdf", "The code is 4242")
    assert "The code is 4242" in read_attachment(tmp_path / "report.pdf").content
    from docx import Document

    document = Document()
    document.add_paragraph("Meeting on Tuesday")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "apples", "17"
    document.save(tmp_path / "notes.docx")
    docx = read_attachment(tmp_path / "notes.docx").content
    assert "Meeting on Tuesday" in docx and "apples,17" in docx
    pd.DataFrame({"value": [40, 2]}).to_excel(tmp_path / "book.xlsx", index=False)
    assert "40" in read_attachment(tmp_path / "book.xlsx").content
    (tmp_path / "data.json").write_text(json.dumps({"k": "v"}))
    assert '"k"' in read_attachment(tmp_path / "data.json").content
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    assert "could not be read" in read_attachment(tmp_path / "broken.pdf").content
    (tmp_path / "broken.docx").write_bytes(b"not a zip")
    assert "not a valid .docx" in read_attachment(tmp_path / "broken.docx").content
    png = Path(__file__).resolve().parents[4] / "evalui" / "data" / "gaia_sample" / "2023" / "validation" / "red_square.png"
    shown = read_attachment(png)
    assert shown.image["image_url"]["url"].startswith("data:image/png;base64,") and shown.error is None
    assert read_attachment(png, images=False).error == "unsupported"


def test_endpoint_without_native_tools_falls_back_to_the_text_protocol(store, tmp_path):
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([{"task_id": "a", "Question": "What is 6 times 7, computed?", "Final answer": "42"},
                                     {"task_id": "b", "Question": "What is 6 times 7, computed again?",
                                      "Final answer": "42"}]))

    def script(body, n):
        if body.get("tools"):
            return error(400, "tools are not supported")
        outputs = tool_outputs(body)
        if not outputs:
            return completion(tool_call_text("python", {"code": "print(6 * 7)"}) + "\n" +
                              tool_call_text("nonexistent", {}))
        return completion(f"FINAL ANSWER: {outputs[0].split('stdout:')[1].split()[0]}")

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0)
        options = GaiaOptions(source=f"questions:{questions}", tools=["python"])
        exp_id = lifecycle.prepare(store, GAIA, options, settings, concurrency=1)
        summary = lifecycle.execute(store, exp_id, settings)
        bodies = [r.body for r in peer.chat_requests()]
    assert summary["correct"] == 2 and summary["errors"] == 0
    assert sum(1 for b in bodies if b.get("tools")) == 1  # refused once; the next task asked in text at once
    assert "<tool_call>" in bodies[1]["messages"][0]["content"]  # the protocol is described in the system prompt
    steps = {s.sample_id: s.trajectory for s in store.samples(exp_id)}
    results = steps["a"][0]["tool_results"]
    assert [r["name"] for r in results] == ["python", "nonexistent"] and results[1]["error"] == "unknown_tool"
    assert summary["tool_error_rate"] == 0.5
    # The run recorded its source, and a resume reads it again.
    assert store.experiment(exp_id)["config"]["options"]["source"] == f"questions:{questions}"
    assert store.experiment(exp_id)["config"]["options"]["tools"] == ["python"]


def test_first_question_reaches_the_model_with_the_attachment_named(store):
    seen = []

    def script(body, n):
        seen.append(first_user_text(body))
        return completion("FINAL ANSWER: 10")

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, GAIA, GaiaOptions(source="sample", level="1", tools=["files"]), settings)
        lifecycle.execute(store, exp_id, settings)
    assert any("Attached file: orders.csv (available through the files tool)" in text for text in seen)
    assert not any("lamp,3,20" in text for text in seen)  # the agent reads the file with its tool, not inlined
