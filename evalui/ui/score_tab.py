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
from evalui.ui.strings import t


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
            gr.Markdown(t("score.bfcl_intro"))
            category = gr.Dropdown(list(CATEGORIES), value="simple_python", label=t("score.category"), elem_id="score-bfcl-category")
            results = gr.File(label=t("score.results"), file_types=[".json", ".jsonl"], elem_id="score-bfcl-file")
            bfcl_button = gr.Button(t("score.bfcl_button"), variant="primary", elem_id="score-bfcl-button")
        with gr.Column():
            gr.Markdown(t("score.gaia_intro"))
            submission = gr.File(label=t("score.submission"), file_types=[".jsonl", ".json"], elem_id="score-gaia-submission")
            metadata = gr.File(label=t("score.metadata"), file_types=[".jsonl", ".parquet"], elem_id="score-gaia-metadata")
            gaia_button = gr.Button(t("score.gaia_button"), variant="primary", elem_id="score-gaia-button")
    summary = gr.Code(label=t("score.summary"), language="json", elem_id="score-summary")
    table = gr.Dataframe(label=t("score.verdicts"), wrap=True, max_height=420, elem_id="score-table")
    download = gr.File(label=t("score.download"), elem_id="score-download")
    bfcl_button.click(score_bfcl_file, [category, results], [summary, table, download], api_name="score_bfcl_file")
    gaia_button.click(score_gaia_file, [submission, metadata], [summary, table, download], api_name="score_gaia_file")
