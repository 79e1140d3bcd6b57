"""The GAIA tab: choose a source and the model or an allowed agent, run, and read the results."""

from __future__ import annotations

import os
from pathlib import Path

import gradio as gr
import pandas as pd

from evalui.benchmarks.gaia import data
from evalui.benchmarks.gaia.agent import load_agent
from evalui.benchmarks.gaia.run import execute_gaia_run, export_gaia_run, prepare_gaia_run, tasks_frame
from evalui.config import data_dir
from evalui.engine.store import RunStore
from evalui.reports.charts import accuracy_bars, histogram
from evalui.ui import launcher
from evalui.ui import inspector
from evalui.ui.access import say
from evalui.ui.endpoint_panel import EndpointInputs, endpoint_settings, preflight
from evalui.ui.run_view import finished_summary
from evalui.ui.strings import t

SOURCES = ("Bundled sample", "Hugging Face (gated)", "Local folder", "Uploaded JSON file")
ENDPOINT_CHOICE = "The endpoint above"
AGENTS_ENV = "EVALUI_AGENTS"
COLUMNS = ["task", "level", "question", "file", "prediction", "truth", "exact", "lenient", "latency s", "error"]
WIDTHS = ["13%", "5%", "26%", "8%", "12%", "10%", "7%", "7%", "7%", "5%"]


def allowed_agents() -> list[str]:
    """Agents the server's operator allows (EVALUI_AGENTS=module:attr,…); visitors cannot name others."""
    return [spec.strip() for spec in os.environ.get(AGENTS_ENV, "").split(",") if spec.strip()]


def token_note():
    present = bool(os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN"))
    return t("gaia.token_present") if present else t("gaia.token_missing")


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def load_selected(source, split, level, limit, folder, upload):
    level = None if level == "All" else level
    limit = int(limit or 0) or None
    if source == "Bundled sample":
        return data.load_bundled_sample(level, limit), "bundled sample"
    if source == "Hugging Face (gated)":
        return data.load_hf(split, level, limit), f"{data.HF_REPO} {split}"
    if source == "Local folder":
        if not (folder or "").strip():
            raise ValueError(say("msg.need_folder"))
        path = Path(folder).expanduser().resolve()
        # Visitors may only read folders the operator put under the data folder.
        if not _inside(path, data_dir()):
            raise ValueError(say("msg.folder_outside"))
        return data.load_folder(path, split, level, limit), f"folder {path.name}"
    if upload is None:
        raise ValueError(say("msg.need_upload"))
    path = upload if isinstance(upload, str) else upload.name
    return data.load_questions_file(path, level, limit), f"uploaded {Path(path).name}"


def task_table(store: RunStore, exp_id: str | None) -> pd.DataFrame:
    """The per-task table; a task whose answer is hidden (the test split) says "unscored", not a dash."""
    if not exp_id:
        return pd.DataFrame(columns=COLUMNS)
    table = tasks_frame(store, exp_id)
    unscored = table["truth"].isna() | table["truth"].isin(["", data.UNKNOWN_ANSWER])
    for column in ("exact", "lenient"):
        table.loc[unscored & (table[column] == "–"), column] = "unscored"
    return table[COLUMNS]


def results_view(store: RunStore, exp_id: str | None):
    if not exp_id or store.experiment(exp_id) is None:
        return None, None, task_table(store, None), None
    summary = finished_summary(store, exp_id, export_gaia_run)
    if not summary:
        return None, None, task_table(store, exp_id), None
    by_level = accuracy_bars(summary["by_level"], "Exact match per level (95% CI)") if summary["by_level"] else None
    table = task_table(store, exp_id)
    latencies = [v for v in table["latency s"].tolist() if v is not None]
    latency = histogram(latencies, "Latency per task", "seconds") if latencies else None
    folder = Path(summary["out_dir"])
    names = ("submission.jsonl", "SUBMISSION_GUIDE.md", "report.md", "tasks.jsonl", "accuracy_by_level.html", "latency.html", "plotly.min.js")
    files = [str(folder / n) for n in names if (folder / n).exists()]
    return by_level, latency, table, files


def build(demo, store: RunStore, endpoint: EndpointInputs) -> None:
    with gr.Row():
        source = gr.Radio(list(SOURCES), value="Bundled sample", label=t("gaia.source"), elem_id="gaia-source")
        split = gr.Radio(list(data.SPLITS), value="validation", label=t("gaia.split"), elem_id="gaia-split")
        level = gr.Radio(["All", "1", "2", "3"], value="All", label=t("gaia.level"), elem_id="gaia-level")
    gr.Markdown(token_note())
    with gr.Row():
        folder = gr.Textbox(label=t("gaia.folder"), elem_id="gaia-folder")
        upload = gr.File(label=t("gaia.upload"), file_types=[".json"], elem_id="gaia-upload")
    with gr.Row():
        solver = gr.Dropdown([ENDPOINT_CHOICE, *allowed_agents()], value=ENDPOINT_CHOICE, label=t("gaia.solver"),
                             info=t("gaia.solver_info"), elem_id="gaia-solver")
        limit = gr.Number(value=0, precision=0, minimum=0, label=t("gaia.limit"), elem_id="gaia-limit")
        concurrency = gr.Slider(1, 32, value=4, step=1, label=t("run.concurrency"), elem_id="gaia-concurrency")
    exp_id = gr.Textbox(label=t("run.id"), placeholder=t("run.id_hint"),
                        elem_id="gaia-exp-id")
    parts = launcher.build_controls("gaia", t("gaia.start"))
    with gr.Row():
        level_plot = gr.Plot(label=t("gaia.by_level"), elem_id="gaia-level-plot")
        latency_plot = gr.Plot(label=t("gaia.latency"), elem_id="gaia-latency-plot")
    table = gr.Dataframe(task_table(store, None), label=t("gaia.tasks"), wrap=True, max_height=480, interactive=False,
                         column_widths=WIDTHS, elem_id="gaia-tasks")
    downloads = gr.File(label=t("gaia.downloads"), file_count="multiple", elem_id="gaia-downloads")

    def prepare(base_url, model, api_key, temperature, max_tokens, timeout, source_value, split_value, level_value,
                folder_value, upload_value, solver_value, limit_value, concurrency_value, exp_id_value):
        questions, described = load_selected(source_value, split_value, level_value, limit_value, folder_value, upload_value)
        if not questions:
            raise ValueError(say("msg.no_tasks"))
        agent = settings = None
        agent_spec = None
        if solver_value and solver_value != ENDPOINT_CHOICE:
            if solver_value not in allowed_agents():
                raise ValueError(say("msg.agent_refused"))
            agent_spec, agent = solver_value, load_agent(solver_value)
        else:
            settings = endpoint_settings(base_url, model, api_key, temperature, max_tokens, timeout)
            preflight(settings)
        run_id = prepare_gaia_run(store, questions, source=described, settings=settings, agent_spec=agent_spec,
                                  exp_id=(exp_id_value or "").strip() or None)

        def work(run):
            run.say(f"run {run_id}: {len(questions)} tasks from {described}")
            return execute_gaia_run(store, run_id, settings=settings, agent=agent, concurrency=int(concurrency_value),
                                    cancel=run.cancel, on_progress=lambda p: run.say(p.message))

        return run_id, work

    launcher.wire(demo, store, parts, benchmark="gaia",
                  inputs=[*endpoint.components(), source, split, level, folder, upload, solver, limit, concurrency, exp_id],
                  prepare=prepare, results=[level_plot, latency_plot, table, downloads],
                  results_view=lambda run_id: results_view(store, run_id), api_prefix="gaia")
    inspector.include(demo, store, parts)
