"""Score existing result files: one panel per benchmark whose spec offers file scoring (its
``score_files``: the official result files of one, the leaderboard submissions of another).

Each panel's element ids are ``score-<benchmark>-<input>`` and ``score-<benchmark>-button``, and its
endpoint ``score_<benchmark>_file``, made from the spec's name; ``score_<benchmark>_file`` and
``<benchmark>_figures`` are this module's functions too (module ``__getattr__``).

Uploads are checked (size, binary, UTF-8) before scoring, so the page can say why in the visitor's language; a refusal or a bad file is a one-line
message in ``#score-figures`` naming the file without its server path, and the outputs keep their values.
"""

from __future__ import annotations

import inspect
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import gradio as gr
import pandas as pd

from evalui.core import registry
from evalui.core.benchmark import Benchmark, FileScoring
from evalui.jsonl import max_input_mb, write_jsonl
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


def scoring_specs() -> list[Benchmark]:
    """The benchmarks whose files the tab scores, in the registry's order (one that cannot load is left out)."""
    found = (registry.find(name) for name in registry.names())
    return [spec for spec in found if spec is not None and spec.score_files is not None]


def figures_text(scoring: FileScoring, summary: dict) -> str:
    """The summary's figures in the visitor's language, one line of the spec's ``figures`` each."""
    return "\n".join(say(key, **fields) for key, fields in scoring.figures(summary))


def figures_of(spec: Benchmark) -> Callable[[dict], str]:
    scoring = spec.score_files
    assert scoring is not None

    def figures(summary: dict) -> str:
        return figures_text(scoring, summary)

    figures.__name__ = figures.__qualname__ = f"{spec.name}_figures"
    return figures


def file_scorer(spec: Benchmark) -> Callable:
    """The endpoint that scores the spec's files: (its inputs' values) -> (figures, summary JSON,
    verdict table, verdict file)."""
    scoring = spec.score_files
    assert scoring is not None

    def score_file(*values):
        require_access("score files")
        given = [_text_file(value) if not field.choices else value for field, value in zip(scoring.inputs, values)]
        rows, summary = scoring.score(given, SCORE_BUDGET_S)
        out = write_jsonl(Path(tempfile.mkdtemp(prefix="evalui-")) / scoring.verdicts_name(given), rows)
        table = pd.DataFrame(rows, columns=list(scoring.columns))
        return figures_text(scoring, summary), json.dumps(summary, indent=2), table, str(out)

    score_file.__name__ = score_file.__qualname__ = f"score_{spec.name}_file"
    score_file.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(field.parameter or field.key, inspect.Parameter.POSITIONAL_OR_KEYWORD)
         for field in scoring.inputs])
    return score_file


def __getattr__(name: str):
    """``score_<benchmark>_file`` and ``<benchmark>_figures`` for every benchmark that scores files."""
    for spec in scoring_specs():
        if name == f"score_{spec.name}_file":
            return file_scorer(spec)
        if name == f"{spec.name}_figures":
            return figures_of(spec)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _panel(spec: Benchmark):
    """The spec's inputs and its button, in a column of their own."""
    scoring = spec.score_files
    assert scoring is not None
    inputs: list[gr.components.Component] = []
    with gr.Column():
        gr.Markdown(t(scoring.intro))
        for field in scoring.inputs:
            elem_id = f"score-{spec.name}-{field.key}"
            if field.choices:
                inputs.append(gr.Dropdown(field.choices(), value=field.default, label=t(field.label), elem_id=elem_id))
            else:
                inputs.append(gr.File(label=t(field.label), file_types=list(field.file_types), elem_id=elem_id))
        button = gr.Button(t(scoring.button), variant="primary", elem_id=f"score-{spec.name}-button")
    return inputs, button


def build() -> None:
    specs = scoring_specs()
    with gr.Row():
        panels = [(spec, *_panel(spec)) for spec in specs]
    figures = gr.Markdown(elem_id="score-figures")
    with gr.Accordion(t("score.json"), open=False):
        summary = gr.Code(language="json", elem_id="score-summary")
    table = gr.Dataframe(label=t("score.verdicts"), wrap=True, max_height=420, elem_id="score-table")
    download = gr.File(label=t("score.download"), elem_id="score-download")
    outputs = [figures, summary, table, download]
    for spec, inputs, button in panels:
        button.click(guarded(len(outputs), 0, explain=explain)(file_scorer(spec)), inputs, outputs,
                     api_name=f"score_{spec.name}_file")
