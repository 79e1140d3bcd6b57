"""The BFCL tab: start, watch, cancel and read BFCL runs."""

from __future__ import annotations

import time
from pathlib import Path

import gradio as gr

from evalui.benchmarks.bfcl.run import execute_bfcl_run, export_bfcl_run, prepare_bfcl_run, samples_frame
from evalui.engine.background import background_runs
from evalui.engine.store import RunStore
from evalui.reports.charts import accuracy_bars, count_bars
from evalui.scoring.bfcl import CATEGORIES
from evalui.ui.endpoint_panel import EndpointInputs, endpoint_settings
from evalui.ui.run_view import is_running, log_text, run_choices, status_line

POLL_S = 0.5


def results_view(store: RunStore, exp_id: str | None):
    """(accuracy chart, error chart, sample table, files) of a run, from the store."""
    experiment = store.experiment(exp_id) if exp_id else None
    if experiment is None:
        return None, None, None, None
    summary = experiment.get("summary")
    if not summary or is_running(exp_id):
        return None, None, samples_frame(store, exp_id), None
    accuracy = accuracy_bars(summary["by_category"], "Accuracy per category (95% CI)")
    errors = count_bars(summary["error_types"], "Error types") if summary["error_types"] else None
    folder = Path(summary["out_dir"])
    files = [str(p) for p in sorted(folder.glob("BFCL_v4_*_result.json"))]
    files += [str(folder / name) for name in ("report.md", "samples.jsonl", "accuracy.html") if (folder / name).exists()]
    return accuracy, errors, samples_frame(store, exp_id), files


def build(demo, store: RunStore, endpoint: EndpointInputs) -> None:
    current = gr.State(None)
    with gr.Row():
        categories = gr.Dropdown(list(CATEGORIES), value=["simple_python"], multiselect=True, label="Categories", elem_id="bfcl-categories")
        limit = gr.Number(value=5, precision=0, minimum=0, label="Limit per category (0 = all)", elem_id="bfcl-limit")
        mode = gr.Radio(["fc", "prompt"], value="fc", label="Mode", info="fc: native tool calls · prompt: [func(param=value)] text")
        concurrency = gr.Slider(1, 64, value=8, step=1, label="Concurrency", elem_id="bfcl-concurrency")
    exp_id = gr.Textbox(label="Run id (optional)", placeholder="empty: a new run · an existing id resumes it", elem_id="bfcl-exp-id")
    with gr.Row():
        start = gr.Button("Start BFCL run", variant="primary", elem_id="bfcl-start")
        cancel = gr.Button("Cancel", variant="stop", elem_id="bfcl-cancel")
    status = gr.Markdown("No run selected.", elem_id="bfcl-status")
    log = gr.Textbox(label="Log", lines=8, max_lines=8, autoscroll=True, interactive=False, elem_id="bfcl-log")
    with gr.Row():
        runs = gr.Dropdown(choices=[], label="Stored runs", elem_id="bfcl-runs", scale=4)
        refresh = gr.Button("Refresh", scale=1, elem_id="bfcl-refresh")
    with gr.Row():
        accuracy_plot = gr.Plot(label="Accuracy per category", elem_id="bfcl-accuracy-plot")
        error_plot = gr.Plot(label="Error types", elem_id="bfcl-error-plot")
    samples = gr.Dataframe(label="Samples", wrap=True, max_height=480, interactive=False, elem_id="bfcl-samples")
    downloads = gr.File(label="Result files and report", file_count="multiple", elem_id="bfcl-downloads")
    timer = gr.Timer(value=2.0, active=False)

    def start_run(base_url, model, api_key, temperature, max_tokens, timeout, chosen, limit_value, mode_value,
                  concurrency_value, exp_id_value, progress=gr.Progress()):
        settings = endpoint_settings(base_url, model, api_key, temperature, max_tokens, timeout)
        try:
            run_id = prepare_bfcl_run(store, settings, list(chosen or []), limit=int(limit_value or 0) or None,
                                      mode=mode_value, exp_id=(exp_id_value or "").strip() or None)
        except ValueError as exc:
            raise gr.Error(str(exc)) from None

        def work(run):
            run.say(f"run {run_id} started against {settings.host} ({settings.model})")
            return execute_bfcl_run(store, settings, run_id, concurrency=int(concurrency_value), cancel=run.cancel,
                                    on_progress=lambda p: run.say(p.message))

        run = background_runs().start(run_id, work)
        while run.running:
            counts = store.progress(run_id)
            progress((counts["judged"], counts["total"]), desc=f"BFCL {counts['judged']}/{counts['total']}", unit="samples")
            yield run_id, status_line(store, run_id), log_text(run_id), gr.skip(), gr.skip(), gr.skip(), gr.skip()
            time.sleep(POLL_S)
        if run.error:
            gr.Warning(f"The run stopped: {run.error}")
        yield (run_id, status_line(store, run_id), log_text(run_id), *results_view(store, run_id))

    def cancel_run(run_id):
        if run_id and background_runs().cancel(run_id):
            gr.Info("Cancelling: requests in flight will finish, the rest stays pending for a resume.")
        return status_line(store, run_id)

    def list_runs(selected=None):
        return gr.update(choices=run_choices(store, "bfcl"), value=selected)

    def show_run(run_id):
        if not run_id:
            return None, "No run selected.", "", None, None, None, None, gr.Timer(active=False)
        experiment = store.experiment(run_id)
        if experiment and not experiment.get("summary") and not is_running(run_id) and store.progress(run_id)["judged"]:
            export_bfcl_run(store, run_id)  # a run that crashed before exporting
        return (run_id, status_line(store, run_id), log_text(run_id), *results_view(store, run_id),
                gr.Timer(active=is_running(run_id)))

    def poll(run_id):
        if is_running(run_id):
            return status_line(store, run_id), log_text(run_id), gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.Timer(active=True)
        return (status_line(store, run_id), log_text(run_id), *results_view(store, run_id), gr.Timer(active=False))

    results = [accuracy_plot, error_plot, samples, downloads]
    started = start.click(
        start_run,
        [*endpoint.components(), categories, limit, mode, concurrency, exp_id],
        [current, status, log, *results],
        api_name="bfcl_start",
        concurrency_limit=8,
        concurrency_id="launchers",
    )
    started.then(list_runs, [current], [runs], api_visibility="private")
    cancel.click(cancel_run, [current], [status], cancels=[started], api_name="bfcl_cancel")
    refresh.click(list_runs, None, [runs], api_name="bfcl_runs")
    runs.input(show_run, [runs], [current, status, log, *results, timer], api_name="bfcl_show")
    timer.tick(poll, [current], [status, log, *results, timer], api_visibility="private")
    demo.load(list_runs, None, [runs], api_visibility="private")
