"""The Runs tab: every stored run; compare several; open, resume, delete one: its figures and the menu
of its files above the viewer of its samples."""

from __future__ import annotations

import html

import gradio as gr
import pandas as pd

from evalui.core.run_config import RunConfig
from evalui.endpoint.default_key import key_for
from evalui.ops import history
from evalui.reports.charts import cost_pareto, priced_runs
from evalui.reports.markdown import inert
from evalui.run.run import reopen
from evalui.store.run_store import RunStore
from evalui.ui import launcher
from evalui.ui.columns import localized
from evalui.ui.i18n.strings import chart_words, t
from evalui.ui.run_view import finished_summary, is_running, percent, state_word
from evalui.ui.tabs import downloads, run_header
from evalui.ui.tabs.endpoint_panel import EndpointInputs
from evalui.ui.viewer import api as viewer_api
from evalui.ui.viewer import compare as compare_view
from evalui.ui.viewer import page as viewer
from evalui.ui.web.access import require_access, say

RUN_WIDTHS = ["15%", "8%", "11%", "11%", "9%", "7%", "6%", "7%", "6%", "9%", "5%", "6%"]
VALID_COLUMN = "valid samples"
# The table's columns whose cells are words of the catalog: the page shows them in the visitor's language.
WORD_CELLS = {"status": state_word, "metric": run_header.headline_name}


def runs_table(store: RunStore) -> pd.DataFrame:
    """history's table of runs with, after the headline value (never in its place), the valid-sample
    score and its 95 % interval from each run's summary (in the visitor's language, as a run-time line)."""
    frame = history.runs_frame(store)
    summaries = {e["exp_id"]: e.get("summary") or {} for e in store.experiments()}

    def valid(exp_id):
        validity = summaries.get(exp_id, {}).get("validity") or {}
        if validity.get("valid_accuracy") is None:
            return ""
        low, high = (list(validity.get("valid_ci95") or []) + [None, None])[:2]
        interval = "" if low is None or high is None else f" [{percent(low)}–{percent(high)}]"  # never "[–––]"
        return say("runs.valid_cell", valid=percent(validity["valid_accuracy"]), interval=interval,
                   invalid=validity.get("invalid", 0))

    frame.insert(list(frame.columns).index("value") + 1, VALID_COLUMN, [valid(i) for i in frame["exp_id"]])
    return frame


def drawn_when_filled(*figures):
    """Each chart shown when it holds a figure, hidden when empty (an empty frame says nothing)."""
    shown = [gr.update(visible=figure is not None) for figure in figures]
    return shown[0] if len(shown) == 1 else tuple(shown)


def runs_table_columns() -> pd.DataFrame:
    columns = list(history.RUN_COLUMNS)
    columns.insert(columns.index("value") + 1, VALID_COLUMN)
    return pd.DataFrame(columns=columns)


def build(demo, store: RunStore, endpoint: EndpointInputs) -> None:
    with gr.Row():
        refresh = gr.Button(t("runs.refresh"), elem_id="runs-refresh")
    table = gr.Dataframe(runs_table_columns(), label=t("tab.runs"), interactive=False, wrap=True,
                         max_height=360, column_widths=RUN_WIDTHS, elem_id="runs-table")
    gr.Markdown(t("runs.one"))
    parts = launcher.build_controls("runs", t("runs.resume"))
    # Deleting takes a second, deliberate click: the run's samples and folder cannot be brought back.
    with gr.Row(visible=False, elem_id="runs-delete-confirm-row") as confirm_row:
        question = gr.Markdown(elem_id="runs-delete-question")
        confirm = gr.Button(t("runs.delete_confirm"), variant="stop", elem_id="runs-delete-confirm", scale=0)
        keep = gr.Button(t("runs.delete_keep"), elem_id="runs-delete-keep", scale=0)
    with run_header.cards("runs"):
        with run_header.card():
            figures = gr.Markdown("", elem_id="runs-figures")
        with run_header.menus("runs"):
            menu = downloads.menu("runs-files", label=t("runs.files"))
            # Beside the run's files rather than a row of its own: the viewer starts a line higher.
            delete = gr.Button(t("runs.delete"), variant="stop", size="sm", elem_id="runs-delete")
    samples_viewer = viewer.include(demo, store, parts)
    # Comparing runs comes after the one run's viewer: the viewer is what a run's page is for, and
    # the comparisons, charts and side by side below it would push it two screens down.
    with gr.Row():
        chosen = gr.Dropdown(choices=[], multiselect=True, label=t("runs.compare_choice"), elem_id="runs-compare-choice", scale=4)
        compare = gr.Button(t("runs.compare"), scale=1, elem_id="runs-compare")
    compare_note = gr.Markdown(elem_id="runs-compare-note")
    with gr.Row():
        # Drawn once runs are compared: an empty chart frame says nothing.
        per_group = gr.Plot(label=t("runs.groups"), elem_id="runs-compare-groups", visible=False)
        against_tokens = gr.Plot(label=t("runs.tokens"), elem_id="runs-compare-tokens", visible=False)
    with gr.Row():
        # Choices are filled when the page loads; an API caller's session never loads the page, and
        # /runs_cost_pareto takes any benchmark's name (an unknown one has no runs).
        pareto_benchmark = gr.Dropdown(choices=[], label=t("runs.pareto_benchmark"), scale=1, allow_custom_value=True,
                                       elem_id="runs-pareto-benchmark")
        pareto_note = gr.Markdown(elem_id="runs-pareto-note")
    pareto = gr.Plot(label=t("runs.pareto"), elem_id="runs-pareto", visible=False)
    pair = compare_view.build(store)
    viewer_api.register_endpoints(store)

    def listing():
        frame = runs_table(store)
        ids = list(frame["exp_id"])
        return localized(frame, WORD_CELLS), gr.update(choices=ids), gr.update(choices=ids), gr.update(choices=ids)

    def run_view(run_id):
        """The run's figures and files, from its summary and folder: the viewer pages its samples."""
        experiment = store.experiment(run_id) if run_id else None
        if experiment is None:
            return "", *downloads.filled(None)
        summary = finished_summary(store, run_id)
        return run_header.figures_markdown(store, run_id, summary), *downloads.filled(history.artefacts(experiment))

    def prepare(api_key, selected, **start):
        if not selected:
            raise ValueError(say("msg.need_run"))
        experiment = store.experiment(selected)
        if experiment is None:
            raise ValueError(say("msg.no_such_run", exp_id=selected))
        saved = RunConfig.of(experiment).endpoint or {}
        settings = history.stored_endpoint(experiment, (api_key or "").strip() or key_for(saved.get("base_url", "")))
        reopen(store, selected, settings, **start)  # the endpoint checked, then the run's epochs and budget

        def work(run):
            run.say(f"resuming {selected} against {settings.host}")
            return history.resume_run(store, selected, settings, cancel=run.cancel,
                                      on_progress=lambda p: run.say(p.message))

        return selected, work

    def benchmark_choices():
        return gr.update(choices=sorted({e["benchmark"] for e in store.experiments()}))

    def cost_chart(benchmark):
        if not benchmark:
            return "", None
        points, unpriced = priced_runs(store.experiments(benchmark))
        figure = cost_pareto(points, f"{benchmark}: {say('runs.pareto').lower()}", chart_words()) if points else None
        front = figure.data[1].customdata if figure is not None else ()
        # Numbered as the chart labels the frontier, cheapest first.
        return say("runs.pareto_note", benchmark=inert(benchmark), shown=len(points), unpriced=unpriced,
                   front=", ".join(f"{n}: {inert(i)}" for n, i in enumerate(front, start=1)) or "–"), figure

    def compare_runs(ids):
        ids = list(ids or [])
        if not ids:
            return say("msg.compare_none"), None, None
        mixed = history.benchmarks_of([e for e in (store.experiment(i) for i in ids) if e])
        if len(mixed) > 1:
            message = say("msg.compare_mixed", found=", ".join(mixed))
            gr.Warning(html.escape(message))
            return f"⚠️ {message}", None, None
        return "", *history.comparison_figures(store, ids, chart_words())

    def ask_delete(selected):
        require_access("delete runs")
        if not selected:
            gr.Warning(say("msg.need_run"))
            return gr.Row(visible=False), ""
        if is_running(selected):
            gr.Warning(say("msg.delete_running"))
            return gr.Row(visible=False), ""
        return gr.Row(visible=True), say("msg.delete_ask", exp_id=inert(selected))

    def delete_run(selected):
        require_access("delete runs")
        hidden = gr.Row(visible=False)
        unchanged = (hidden, *(gr.skip() for _ in range(8)))
        if not selected:
            gr.Warning(say("msg.need_run"))
            return unchanged
        if is_running(selected):
            gr.Warning(say("msg.delete_running"))
            return unchanged
        try:
            history.delete_run(store, selected)
        except ValueError as exc:  # RunBusy: another process is running it
            gr.Warning(html.escape(say("msg.delete_failed", exp_id=selected, reason=str(exc))))
            return unchanged
        gr.Info(html.escape(say("msg.deleted", exp_id=selected)))
        frame = runs_table(store)
        ids = list(frame["exp_id"])
        return (hidden, localized(frame, WORD_CELLS), gr.update(choices=ids), gr.update(choices=ids, value=None), None,
                *run_view(None), say("run.none"))

    current = launcher.wire(demo, store, parts, benchmark="", inputs=[endpoint.api_key, parts.runs], prepare=prepare,
                            results=[figures, *menu.outputs()], results_view=run_view, api_prefix="runs", adopt_running=False)
    refresh.click(listing, None, [table, chosen, pair.a, pair.b], api_name="runs_list")
    # The API returns the figures as they are; the page then shows a chart only when it has one.
    compare.click(compare_runs, [chosen], [compare_note, per_group, against_tokens], api_name="runs_compare").then(
        drawn_when_filled, [per_group, against_tokens], [per_group, against_tokens], api_visibility="private")
    delete.click(ask_delete, [current], [confirm_row, question], api_visibility="private")
    keep.click(lambda: gr.Row(visible=False), None, [confirm_row], api_visibility="private")
    confirm.click(delete_run, [current], [confirm_row, table, chosen, parts.runs, current, figures, *menu.outputs(),
                                          parts.status],
                  api_name="runs_delete").then(lambda state: viewer.forget_deleted(store, state), [samples_viewer.view],
                                               samples_viewer.whole(), api_visibility="private")
    demo.load(listing, None, [table, chosen, pair.a, pair.b], api_visibility="private")
    viewer_api.deep_link(demo, store, samples_viewer)
    for source in (demo.load, refresh.click):
        source(benchmark_choices, None, [pareto_benchmark], api_visibility="private")
    pareto_benchmark.change(cost_chart, [pareto_benchmark], [pareto_note, pareto], api_name="runs_cost_pareto").then(
        drawn_when_filled, [pareto], [pareto], api_visibility="private")
