"""The Runs tab: every stored run; compare several; open, resume, delete one; download its files."""

from __future__ import annotations

import gradio as gr

from evalui import history
from evalui.engine.default_key import key_for
from evalui.engine.store import RunStore
from evalui.ui import launcher
from evalui.ui.access import require_access
from evalui.ui.endpoint_panel import EndpointInputs
from evalui.ui.run_view import is_running
from evalui.ui.strings import t


def build(demo, store: RunStore, endpoint: EndpointInputs) -> None:
    with gr.Row():
        refresh = gr.Button(t("runs.refresh"), elem_id="runs-refresh")
    table = gr.Dataframe(label=t("tab.runs"), interactive=False, wrap=True, max_height=360, elem_id="runs-table")
    with gr.Row():
        chosen = gr.Dropdown(choices=[], multiselect=True, label=t("runs.compare_choice"), elem_id="runs-compare-choice", scale=4)
        compare = gr.Button(t("runs.compare"), scale=1, elem_id="runs-compare")
    with gr.Row():
        per_group = gr.Plot(label=t("runs.groups"), elem_id="runs-compare-groups")
        against_tokens = gr.Plot(label=t("runs.tokens"), elem_id="runs-compare-tokens")
    gr.Markdown(t("runs.one"))
    parts = launcher.build_controls("runs", t("runs.resume"))
    delete = gr.Button(t("runs.delete"), variant="stop", elem_id="runs-delete")
    samples = gr.Dataframe(label=t("bfcl.samples"), interactive=False, wrap=True, max_height=420, elem_id="runs-samples")
    files = gr.File(label=t("runs.files"), file_count="multiple", elem_id="runs-files")

    def listing():
        frame = history.runs_frame(store)
        return frame, gr.update(choices=list(frame["exp_id"]))

    def run_view(run_id):
        experiment = store.experiment(run_id)
        if experiment is None:
            return None, None
        return history.samples_frame(store, run_id), history.artefacts(experiment) or None

    def prepare(api_key, selected):
        if not selected:
            raise ValueError("Pick a stored run first.")
        experiment = store.experiment(selected)
        if experiment is None:
            raise ValueError(f"No run named {selected}.")
        saved = experiment["config"].get("endpoint") or {}
        settings = history.stored_endpoint(experiment, (api_key or "").strip() or key_for(saved.get("base_url", "")))

        def work(run):
            run.say(f"resuming {selected} against {settings.host}")
            return history.resume_run(store, selected, settings, cancel=run.cancel,
                                      on_progress=lambda p: run.say(p.message))

        return selected, work

    def delete_run(selected):
        require_access("delete runs")
        if not selected:
            raise gr.Error("Pick a stored run first.")
        if is_running(selected):
            raise gr.Error("Cancel the run before deleting it.")
        history.delete_run(store, selected)
        gr.Info(f"Deleted {selected}.")
        frame = history.runs_frame(store)
        ids = list(frame["exp_id"])
        return frame, gr.update(choices=ids), gr.update(choices=ids, value=None), None, None

    current = launcher.wire(demo, store, parts, benchmark="", inputs=[endpoint.api_key, parts.runs], prepare=prepare,
                            results=[samples, files], results_view=run_view, api_prefix="runs")
    refresh.click(listing, None, [table, chosen], api_name="runs_list")
    compare.click(lambda ids: history.comparison_figures(store, list(ids or [])), [chosen], [per_group, against_tokens],
                  api_name="runs_compare")
    delete.click(delete_run, [current], [table, chosen, parts.runs, samples, files], api_name="runs_delete")
    demo.load(listing, None, [table, chosen], api_visibility="private")
