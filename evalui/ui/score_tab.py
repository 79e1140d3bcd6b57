"""Score existing result files: BFCL result files and GAIA submissions."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import gradio as gr
import pandas as pd

from evalui.errors import InputError
from evalui.jsonl import write_jsonl
from evalui.scoring.bfcl import CATEGORIES


def _file_path(upload) -> str:
    if upload is None:
        raise gr.Error("Choose a file first.")
    return upload if isinstance(upload, str) else upload.name


def score_bfcl_file(category: str, upload):
    from evalui.benchmarks.bfcl.score_file import score_result_file

    try:
        verdicts, summary = score_result_file(_file_path(upload), category)
    except InputError as exc:
        raise gr.Error(str(exc).replace(_file_path(upload), Path(_file_path(upload)).name)) from None
    out = write_jsonl(Path(tempfile.mkdtemp(prefix="evalui-")) / f"{category}_verdicts.jsonl", verdicts)
    table = pd.DataFrame(verdicts, columns=["id", "correct", "error_type", "error"])
    return json.dumps(summary, indent=2), table, str(out)


def score_gaia_file(submission, metadata):
    from evalui.benchmarks.gaia.score_file import score_submission

    try:
        rows, summary = score_submission(_file_path(submission), _file_path(metadata))
    except InputError as exc:
        raise gr.Error(str(exc)) from None
    out = write_jsonl(Path(tempfile.mkdtemp(prefix="evalui-")) / "gaia_verdicts.jsonl", rows)
    table = pd.DataFrame(rows, columns=["task_id", "level", "model_answer", "correct", "lenient_correct"])
    return json.dumps(summary, indent=2), table, str(out)


def build() -> None:
    with gr.Row():
        with gr.Column():
            gr.Markdown("### BFCL result file\nJSON lines `{\"id\", \"result\"}`, as `bfcl generate` writes them.")
            category = gr.Dropdown(list(CATEGORIES), value="simple_python", label="Category", elem_id="score-bfcl-category")
            results = gr.File(label="Result file", file_types=[".json", ".jsonl"], elem_id="score-bfcl-file")
            bfcl_button = gr.Button("Score BFCL file", variant="primary", elem_id="score-bfcl-button")
        with gr.Column():
            gr.Markdown("### GAIA submission\nJSON lines `{\"task_id\", \"model_answer\"}` and GAIA's metadata.")
            submission = gr.File(label="Submission", file_types=[".jsonl", ".json"], elem_id="score-gaia-submission")
            metadata = gr.File(label="Metadata (jsonl or parquet)", file_types=[".jsonl", ".parquet"], elem_id="score-gaia-metadata")
            gaia_button = gr.Button("Score GAIA submission", variant="primary", elem_id="score-gaia-button")
    summary = gr.Code(label="Summary", language="json", elem_id="score-summary")
    table = gr.Dataframe(label="Verdicts", wrap=True, max_height=420, elem_id="score-table")
    download = gr.File(label="Verdicts (JSONL)", elem_id="score-download")
    bfcl_button.click(score_bfcl_file, [category, results], [summary, table, download], api_name="score_bfcl_file")
    gaia_button.click(score_gaia_file, [submission, metadata], [summary, table, download], api_name="score_gaia_file")
