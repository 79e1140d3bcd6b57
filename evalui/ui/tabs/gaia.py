"""The GAIA tab: choose a source and the model or an allowed agent, run, and read the results: a
header of summary cards (figures, charts, the download menu) above the viewer, whose transcript
shows each task's steps, tool calls and results."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import gradio as gr

from evalui import settings
from evalui.benchmarks.gaia import data
from evalui.benchmarks.gaia.settings import Settings as GaiaSettings
from evalui.benchmarks.gaia.spec import BENCHMARK, GaiaOptions, NoTasks
from evalui.benchmarks.gaia.tools.base import CHOICES, code_allowed, web_configured
from evalui.benchmarks.gaia.transcript import transcript_html
from evalui.config import data_dir
from evalui.reports.charts import accuracy_bars, histogram
from evalui.run.run import prepare as begin_run
from evalui.store.run_store import RunStore
from evalui.ui import BenchmarkTab, launcher
from evalui.ui.i18n.strings import STRINGS, chart_words, t
from evalui.ui.run_view import finished_summary
from evalui.ui.tabs import downloads, run_header
from evalui.ui.tabs.endpoint_panel import EndpointInputs, endpoint_settings
from evalui.ui.tabs.option_inputs import option_input
from evalui.ui.viewer import page as viewer
from evalui.ui.web.access import say

SOURCES = ("Bundled sample", "Hugging Face (gated)", "Local folder", "Uploaded JSON file")
ENDPOINT_CHOICE = "The endpoint above"
# The choices' values stay these English words (the handlers and API callers use them); the page shows
# each one's label from the catalog.
SOURCE_LABELS = dict(zip(SOURCES, ("gaia.source_sample", "gaia.source_hub", "gaia.source_folder", "gaia.source_upload"),
                         strict=True))
ALL_LEVELS = "All"


def labelled(values, keys: dict[str, str]) -> list[tuple]:
    """(label, value) choices: a value's label from the catalog when ``keys`` names one, else the value."""
    return [(t(keys[value]) if keys.get(value) in STRINGS else value, value) for value in values]


def allowed_agents() -> list[str]:
    """Agents the server's operator allows (EVALUI_AGENTS=module:attr,…); visitors cannot name others."""
    return settings.read_list("agents", GaiaSettings)


def token_note():
    present = bool(os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN"))
    return t("gaia.token_present") if present else t("gaia.token_missing")


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def selected_source(source, split, folder, upload) -> str:
    """The GAIA source option for the page's choice; the run records it and a resume reloads it."""
    if source == "Bundled sample":
        return "sample"
    if source == "Hugging Face (gated)":
        return f"hf:{split}"
    if source == "Local folder":
        if not (folder or "").strip():
            raise ValueError(say("msg.need_folder"))
        path = Path(folder).expanduser().resolve()
        # Visitors may only read folders the operator put under the data folder.
        if not _inside(path, data_dir()):
            raise ValueError(say("msg.folder_outside"))
        return f"folder:{path}@{split}"
    if upload is None:
        raise ValueError(say("msg.need_upload"))
    return f"questions:{kept_upload(Path(upload if isinstance(upload, str) else upload.name))}"


def kept_upload(path: Path) -> Path:
    """An uploaded questions file, checked, then kept in the data folder under its content's hash:
    Gradio's copy is temporary, and a resume reads the file again."""
    data.load_questions_file(path)  # refuses a bad file with a message naming it
    content = path.read_bytes()
    folder = data_dir() / "uploads" / "gaia"
    folder.mkdir(parents=True, exist_ok=True)
    kept = folder / f"{hashlib.sha256(content).hexdigest()[:16]}.json"
    if not kept.exists():
        kept.write_bytes(content)
    return kept


def offered_tools() -> list[str]:
    """The tools this deployment allows: python not on a Space unless allowed, web only when configured."""
    return [name for name in CHOICES if (name != "python" or code_allowed()) and (name != "web" or web_configured())]


def transcript(store: RunStore, exp_id: str | None, task_id: str | None) -> str:
    if not exp_id or not task_id:
        return ""
    found = [s for s in store.samples(exp_id) if s.sample_id == task_id]
    return transcript_html(found[0]) if found else ""


def results_view(store: RunStore, exp_id: str | None):
    """(figures, exact match per level, latency histogram, download menu, files) of a run, from its
    summary and the samples' light rows (no payloads): the viewer pages the tasks themselves."""
    hidden = run_header.chart(None)
    if not exp_id or store.experiment(exp_id) is None:
        return "", hidden, hidden, *downloads.filled(None)
    summary = finished_summary(store, exp_id)
    if not summary:  # a run going: exact match per level so far (the launcher rebuilds this every few seconds)
        so_far = launcher.accuracy_so_far(store, exp_id, say("gaia.chart_level_so_far"))
        return "", run_header.chart(so_far), hidden, *downloads.filled(None)
    by_level = accuracy_bars(summary["by_level"], say("gaia.chart_level")) if summary["by_level"] else None
    latencies = [r.latency_s for r in store.sample_rows(exp_id) if r.latency_s is not None]
    latency = (histogram(latencies, say("gaia.chart_latency"), say("gaia.chart_seconds"),
                         {**chart_words(), "count": say("gaia.chart_count")}) if latencies else None)
    folder = Path(summary["out_dir"])
    names = ("submission.jsonl", "SUBMISSION_GUIDE.md", "report.md", "tasks.jsonl", "accuracy_by_level.html", "latency.html", "plotly.min.js")
    files = [str(folder / n) for n in names if (folder / n).exists()]
    return (run_header.figures_markdown(store, exp_id, summary), run_header.chart(by_level), run_header.chart(latency),
            *downloads.filled(files))


def build(demo, store: RunStore, endpoint: EndpointInputs) -> None:
    with gr.Row():
        source = gr.Radio(labelled(SOURCES, SOURCE_LABELS), value="Bundled sample", label=t("gaia.source"),
                          elem_id="gaia-source")
        split = gr.Radio(labelled(data.SPLITS, {s: f"gaia.split_{s}" for s in data.SPLITS}), value="validation",
                         label=t("gaia.split"), elem_id="gaia-split")
        level = gr.Radio(labelled([ALL_LEVELS, "1", "2", "3"], {ALL_LEVELS: "gaia.level_all"}), value=ALL_LEVELS,
                         label=t("gaia.level"), elem_id="gaia-level")
    gr.Markdown(token_note())
    with gr.Row():
        folder = gr.Textbox(label=t("gaia.folder"), elem_id="gaia-folder")
        upload = gr.File(label=t("gaia.upload"), file_types=[".json"], elem_id="gaia-upload")
    with gr.Row():
        solver = gr.Dropdown(labelled([ENDPOINT_CHOICE, *allowed_agents()], {ENDPOINT_CHOICE: "gaia.solver_endpoint"}),
                             value=ENDPOINT_CHOICE, label=t("gaia.solver"),
                             info=t("gaia.solver_info"), elem_id="gaia-solver")
        limit = option_input(BENCHMARK, "limit", value=0, minimum=0, label=t("gaia.limit"), elem_id="gaia-limit")
        concurrency = gr.Slider(1, 32, value=4, step=1, label=t("run.concurrency"), elem_id="gaia-concurrency")
        epochs = launcher.epochs_input("gaia")
        # In the form's row, not a line of its own: the run page keeps its height for the viewer.
        exp_id = gr.Textbox(label=t("run.id"), placeholder=t("run.id_hint"), elem_id="gaia-exp-id")
    with gr.Row():
        tools = gr.CheckboxGroup(labelled(offered_tools(), {"files": "gaia.tool_files"}), value=[], label=t("gaia.tools"), info=t("gaia.tools_info"),
                                 elem_id="gaia-tools")
        tool_timeout = option_input(BENCHMARK, "tool_timeout", minimum=1, label=t("gaia.tool_timeout"),
                                    elem_id="gaia-tool-timeout")
        max_steps = option_input(BENCHMARK, "max_steps", minimum=1, label=t("gaia.max_steps"), elem_id="gaia-max-steps")
    parts = launcher.build_controls("gaia", t("gaia.start"))
    with run_header.cards("gaia"):
        with run_header.card():
            figures = gr.Markdown("", elem_id="gaia-figures")
        level_plot = run_header.plot(t("gaia.by_level"), "gaia-level-plot")
        latency_plot = run_header.plot(t("gaia.latency"), "gaia-latency-plot")
        with run_header.menus("gaia"):
            menu = downloads.menu("gaia-downloads", label=t("gaia.downloads"))
    # The page shows a task's steps in the viewer's transcript; /gaia_transcript (run id, task id ->
    # the transcript as escaped HTML) stays for API callers, on components never drawn.
    transcript_task = gr.Textbox(visible=False)
    transcript_view = gr.HTML(visible=False)

    def prepare(base_url, model, api_key, temperature, max_tokens, timeout, source_value, split_value, level_value,
                folder_value, upload_value, solver_value, limit_value, concurrency_value, tools_value,
                tool_timeout_value, max_steps_value, exp_id_value, prices=(None, None), **start):
        options = GaiaOptions(source=selected_source(source_value, split_value, folder_value, upload_value),
                              level=None if level_value == ALL_LEVELS else level_value, limit=int(limit_value or 0) or None,
                              tools=list(tools_value or []) or None, tool_timeout=float(tool_timeout_value or 30),
                              max_steps=int(max_steps_value or 12))
        settings = None
        if solver_value and solver_value != ENDPOINT_CHOICE:
            if solver_value not in allowed_agents():
                raise ValueError(say("msg.agent_refused"))
            options.agent = solver_value
        else:
            settings = endpoint_settings(base_url, model, api_key, temperature, max_tokens, timeout, *prices)
        try:
            started = begin_run(store, BENCHMARK, options, settings, exp_id=(exp_id_value or "").strip() or None,
                                **start)
        except NoTasks:
            raise ValueError(say("msg.no_tasks")) from None
        total = store.progress(started.exp_id)["total"]

        def work(run):
            run.say(f"run {started.exp_id}: {total} tasks from {options.source}")
            return started.execute(concurrency=int(concurrency_value), cancel=run.cancel,
                                   on_progress=lambda p: run.say(p.message))

        return started.exp_id, work

    launcher.wire(demo, store, parts, benchmark="gaia",
                  inputs=[*endpoint.components(), source, split, level, folder, upload, solver, limit, concurrency,
                          tools, tool_timeout, max_steps, exp_id],
                  prepare=prepare, results=[figures, level_plot, latency_plot, *menu.outputs()],
                  results_view=lambda run_id: results_view(store, run_id), api_prefix="gaia", epochs=epochs,
                  prices=endpoint.price_components())
    transcript_task.change(lambda run_id, task_id: transcript(store, run_id, task_id), [parts.runs, transcript_task],
                           [transcript_view], api_name="gaia_transcript")
    viewer.include(demo, store, parts)


TABS = (BenchmarkTab("tab.gaia", BENCHMARK.name, build),)
