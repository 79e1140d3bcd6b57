"""A tab for a benchmark added through the registry: inputs from its options, the shared launcher,
a header of summary cards (its headline, accuracy per group, the download menu), then the viewer of
its samples. Built-in benchmarks have tabs of their own."""

from __future__ import annotations

import gradio as gr

from evalui.core.benchmark import Benchmark
from evalui.ops.history import artefacts
from evalui.reports.charts import accuracy_bars
from evalui.run.run import prepare as begin_run
from evalui.store.run_store import RunStore
from evalui.ui import launcher
from evalui.ui.i18n.strings import t
from evalui.ui.run_view import finished_summary
from evalui.ui.tabs import downloads, run_header
from evalui.ui.tabs.endpoint_panel import EndpointInputs, endpoint_settings
from evalui.ui.tabs.option_inputs import option_input
from evalui.ui.viewer import page as viewer


def build(demo, store: RunStore, endpoint: EndpointInputs, spec: Benchmark) -> None:
    fields = spec.asked_fields()
    with gr.Row():
        inputs = [option_input(spec, f.name) for f in fields]
        concurrency = gr.Slider(1, 64, value=spec.default_concurrency, step=1, label=t("run.concurrency"),
                                elem_id=f"{spec.name}-concurrency")
        epochs = launcher.epochs_input(spec.name)
        # In the form's row, not a line of its own: the run page keeps its height for the viewer.
        exp_id = gr.Textbox(label=t("run.id"), placeholder=t("run.id_hint"), elem_id=f"{spec.name}-exp-id")
    parts = launcher.build_controls(spec.name, spec.title)
    with run_header.cards(spec.name):
        with run_header.card():
            headline = gr.Markdown(elem_id=f"{spec.name}-headline")
        chart = run_header.plot(None, f"{spec.name}-accuracy-plot", scale=2)
        with run_header.menus(spec.name):
            menu = downloads.menu(f"{spec.name}-downloads")

    def view(run_id):
        """The header's cards from the run's summary: the viewer pages the samples."""
        if not run_id or store.experiment(run_id) is None:
            return "", run_header.chart(None), *downloads.filled(None)
        summary = finished_summary(store, run_id)
        if not summary:  # a run going: its accuracy so far (the launcher rebuilds this every few seconds)
            so_far = launcher.accuracy_so_far(store, run_id, f"{spec.title}: accuracy per {spec.group_name} so far")
            return "", run_header.chart(so_far), *downloads.filled(None)
        label, _ = spec.headline(summary)
        groups = summary.get(f"by_{spec.group_name}") or {}
        return (run_header.figures_markdown(store, run_id, summary),
                run_header.chart(accuracy_bars(groups, f"{spec.title}: {label} per {spec.group_name}") if groups else None),
                *downloads.filled(artefacts(store.experiment(run_id))))

    def prepare(base_url, model, api_key, temperature, max_tokens, timeout, *values, prices=(None, None), **start):
        *option_values, concurrency_value, exp_id_value = values
        settings = endpoint_settings(base_url, model, api_key, temperature, max_tokens, timeout, *prices)
        typed = {f.name: v for f, v in zip(fields, option_values) if v not in (None, "")}
        try:
            options = spec.make_options(typed)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{spec.title}: {exc}") from None
        started = begin_run(store, spec, options, settings, exp_id=(exp_id_value or "").strip() or None,
                            concurrency=int(concurrency_value), **start)

        def work(run):
            run.say(f"run {started.exp_id} started against {settings.host} ({settings.model})")
            return started.execute(cancel=run.cancel, on_progress=lambda p: run.say(p.message))

        return started.exp_id, work

    launcher.wire(demo, store, parts, benchmark=spec.name,
                  inputs=[*endpoint.components(), *inputs, concurrency, exp_id], prepare=prepare,
                  results=[headline, chart, *menu.outputs()], results_view=view,
                  api_prefix=spec.name.replace("-", "_"), epochs=epochs, prices=endpoint.price_components())
    viewer.include(demo, store, parts)
