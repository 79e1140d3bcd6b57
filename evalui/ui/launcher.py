"""The part every launcher tab shares: start a background run, stream its progress, cancel it,
and list stored runs that a reloaded page can reopen."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import gradio as gr

from evalui.engine.background import BackgroundRun, background_runs
from evalui.engine.store import RunStore
from evalui.errors import InputError
from evalui.ui.access import require_access
from evalui.ui.run_view import is_running, log_text, run_choices, status_line
from evalui.ui.strings import t

POLL_S = 0.5

# prepare(*inputs) -> (exp_id, work); work(run) runs in the background and returns a summary.
Prepare = Callable[..., tuple[str, Callable[[BackgroundRun], object]]]
ResultsView = Callable[[str], tuple]


@dataclass
class LauncherParts:
    start: gr.Button
    cancel: gr.Button
    status: gr.Markdown
    log: gr.Textbox
    runs: gr.Dropdown
    refresh: gr.Button


def build_controls(prefix: str, start_label: str) -> LauncherParts:
    with gr.Row():
        start = gr.Button(start_label, variant="primary", elem_id=f"{prefix}-start")
        cancel = gr.Button(t("run.cancel"), variant="stop", elem_id=f"{prefix}-cancel")
    status = gr.Markdown(t("run.none"), elem_id=f"{prefix}-status")
    log = gr.Textbox(label=t("run.log"), lines=6, max_lines=6, autoscroll=True, interactive=False, elem_id=f"{prefix}-log")
    with gr.Row():
        runs = gr.Dropdown(choices=[], label=t("run.stored"), elem_id=f"{prefix}-runs", scale=4)
        refresh = gr.Button(t("run.refresh"), scale=1, elem_id=f"{prefix}-refresh")
    return LauncherParts(start, cancel, status, log, runs, refresh)


def wire(demo, store: RunStore, parts: LauncherParts, *, benchmark: str, inputs: list, prepare: Prepare,
         results: list, results_view: ResultsView, api_prefix: str, live_results: bool = False) -> gr.State:
    """Wire the controls; returns the session's current run id (a gr.State).

    ``live_results`` refreshes the results while the run goes (for views that are cheap to build).
    ``benchmark`` "" lists the runs of every benchmark.
    """
    current = gr.State(None)
    timer = gr.Timer(value=2.0, active=False)
    nothing = tuple(gr.skip() for _ in results)

    def view(run_id):
        return results_view(run_id) if run_id else tuple(None for _ in results)

    def start_run(*values, progress=gr.Progress()):
        require_access("start runs")
        try:
            run_id, work = prepare(*values)
        except (ValueError, InputError) as exc:
            raise gr.Error(str(exc)) from None
        run = background_runs().start(run_id, work)
        while run.running:
            counts = store.progress(run_id)
            progress((counts["judged"], counts["total"]), desc=f"{(benchmark or 'run').upper()} {counts['judged']}/{counts['total']}",
                     unit="samples")
            yield (run_id, status_line(store, run_id), log_text(run_id), *(view(run_id) if live_results else nothing))
            time.sleep(POLL_S)
        if run.error:
            gr.Warning(f"The run stopped: {run.error}")
        yield (run_id, status_line(store, run_id), log_text(run_id), *view(run_id))

    def cancel_run(run_id):
        require_access("cancel runs")
        if run_id and background_runs().cancel(run_id):
            gr.Info("Cancelling: requests in flight finish; the rest waits for a resume.")
        return status_line(store, run_id)

    def list_runs(selected=None):
        return gr.update(choices=run_choices(store, benchmark), value=selected)

    def show_run(run_id):
        return (run_id, status_line(store, run_id) if run_id else "No run selected.", log_text(run_id),
                *view(run_id), gr.Timer(active=is_running(run_id)))

    def poll(run_id):
        if is_running(run_id):
            live = view(run_id) if live_results else nothing
            return (status_line(store, run_id), log_text(run_id), *live, gr.Timer(active=True))
        return (status_line(store, run_id), log_text(run_id), *view(run_id), gr.Timer(active=False))

    started = parts.start.click(start_run, inputs, [current, parts.status, parts.log, *results],
                                api_name=f"{api_prefix}_start", concurrency_limit=8, concurrency_id="launchers")
    started.then(list_runs, [current], [parts.runs], api_visibility="private")
    parts.cancel.click(cancel_run, [current], [parts.status], cancels=[started], api_name=f"{api_prefix}_cancel")
    parts.refresh.click(list_runs, None, [parts.runs], api_name=f"{api_prefix}_runs")
    parts.runs.input(show_run, [parts.runs], [current, parts.status, parts.log, *results, timer],
                     api_name=f"{api_prefix}_show")
    timer.tick(poll, [current], [parts.status, parts.log, *results, timer], api_visibility="private")
    demo.load(list_runs, None, [parts.runs], api_visibility="private")
    return current
