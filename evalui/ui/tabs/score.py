"""Score existing result files: BFCL result files and GAIA submissions.

Uploads are checked (size, binary, UTF-8) before scoring, so the page can say why in the visitor's language; a refusal or a bad file is a one-line
message in ``#score-figures`` naming the file without its server path, and the outputs keep their values.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import gradio as gr
import pandas as pd

from evalui.benchmarks.bfcl.scoring.single_turn import ALL_CATEGORIES
from evalui.jsonl import max_input_mb, write_jsonl
from evalui.reports.markdown import inert
from evalui.review.uploads import FileProblem
from evalui.ui.i18n.strings import t
from evalui.ui.review.view import explain
from evalui.ui.web.access import guarded, require_access, say

# Strangers may upload here: scoring one file may take at most this long.
SCORE_BUDGET_S = 120.0


def _text_file(upload) -> str:
    """The uploaded file's path, once it is known to be small enough and UTF-8 text (parquet excepted)."""
    if upload is None:
        raise gr.Error(say("score.choose_file"))
    path = Path(upload if isinstance(upload, str) else upload.name)
    if path.stat().st_size > max_input_mb() * 2**20:
        raise FileProblem("too_big", path, mb=f"{max_input_mb():g}")
    if path.suffix.lower() != ".parquet":
        raw = path.read_bytes()
        if b"\x00" in raw:
            raise FileProblem("binary", path)
        try:
            raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise FileProblem("not_utf8", path) from None
    return str(path)


def _percent(value) -> str:
    return "–" if value is None else f"{value:.1%}"


def _interval(summary: dict) -> str:
    low, high = summary.get("ci95") or (None, None)
    return f"{_percent(summary.get('accuracy'))} (95% CI {_percent(low)}–{_percent(high)})"


def bfcl_figures(summary: dict) -> str:
    return say("score.bfcl_figures", category=inert(summary["category"]), correct=summary["correct"], total=summary["total"],
               accuracy=_interval(summary), missing=summary["missing"])


def gaia_figures(summary: dict) -> str:
    text = say("score.gaia_figures", correct=summary["correct"], total=summary["total"], accuracy=_interval(summary),
               lenient=_percent(summary.get("lenient_accuracy")), missing=summary.get("missing", 0))
    for level, figures in summary.get("by_level", {}).items():
        # Levels are whatever the uploaded metadata says: shown as text, never as HTML or an image.
        text += "\n" + say("score.gaia_level", level=inert(level), correct=figures["correct"], total=figures["total"],
                           accuracy=_percent(figures["accuracy"]))
    return text


def score_bfcl_file(category: str, upload):
    from evalui.benchmarks.bfcl.score_file import score_result_file

    require_access("score files")
    path = _text_file(upload)
    verdicts, summary = score_result_file(path, category, budget_s=SCORE_BUDGET_S)
    out = write_jsonl(Path(tempfile.mkdtemp(prefix="evalui-")) / f"{category}_verdicts.jsonl", verdicts)
    table = pd.DataFrame(verdicts, columns=["id", "correct", "error_type", "error"])
    return bfcl_figures(summary), json.dumps(summary, indent=2), table, str(out)


def score_gaia_file(submission, metadata):
    from evalui.benchmarks.gaia.score_file import score_submission

    require_access("score files")
    rows, summary = score_submission(_text_file(submission), _text_file(metadata))
    out = write_jsonl(Path(tempfile.mkdtemp(prefix="evalui-")) / "gaia_verdicts.jsonl", rows)
    table = pd.DataFrame(rows, columns=["task_id", "level", "model_answer", "correct", "lenient_correct"])
    return gaia_figures(summary), json.dumps(summary, indent=2), table, str(out)


def build() -> None:
    with gr.Row():
        with gr.Column():
            gr.Markdown(t("score.bfcl_intro"))
            category = gr.Dropdown(list(ALL_CATEGORIES), value="simple_python", label=t("score.category"), elem_id="score-bfcl-category")
            results = gr.File(label=t("score.results"), file_types=[".json", ".jsonl"], elem_id="score-bfcl-file")
            bfcl_button = gr.Button(t("score.bfcl_button"), variant="primary", elem_id="score-bfcl-button")
        with gr.Column():
            gr.Markdown(t("score.gaia_intro"))
            submission = gr.File(label=t("score.submission"), file_types=[".jsonl", ".json"], elem_id="score-gaia-submission")
            metadata = gr.File(label=t("score.metadata"), file_types=[".jsonl", ".parquet"], elem_id="score-gaia-metadata")
            gaia_button = gr.Button(t("score.gaia_button"), variant="primary", elem_id="score-gaia-button")
    figures = gr.Markdown(elem_id="score-figures")
    with gr.Accordion(t("score.json"), open=False):
        summary = gr.Code(language="json", elem_id="score-summary")
    table = gr.Dataframe(label=t("score.verdicts"), wrap=True, max_height=420, elem_id="score-table")
    download = gr.File(label=t("score.download"), elem_id="score-download")
    outputs = [figures, summary, table, download]
    bfcl_button.click(guarded(len(outputs), 0, explain=explain)(score_bfcl_file), [category, results], outputs,
                      api_name="score_bfcl_file")
    gaia_button.click(guarded(len(outputs), 0, explain=explain)(score_gaia_file), [submission, metadata], outputs,
                      api_name="score_gaia_file")
