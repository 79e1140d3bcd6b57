"""The BFCL tab: start, watch, cancel and read BFCL runs."""

from __future__ import annotations

import json
from pathlib import Path

import gradio as gr
import pandas as pd

from evalui.benchmarks.bfcl.calls import pretty_prediction, pretty_truth
from evalui.benchmarks.bfcl.data import stored_entry
from evalui.benchmarks.bfcl.format_sensitivity import chart as format_sensitivity_chart
from evalui.benchmarks.bfcl.report import leaderboard_lines, truth_of
from evalui.benchmarks.bfcl.scoring.single_turn import ALL_CATEGORIES, MULTI_TURN_CATEGORIES
from evalui.benchmarks.bfcl.spec import BENCHMARK, BfclOptions
from evalui.benchmarks.bfcl.tables import samples_frame
from evalui.benchmarks.bfcl.turns import stored_sample_turns, turns_summary
from evalui.reports.charts import accuracy_bars, count_bars
from evalui.run.run import prepare as begin_run
from evalui.store.run_store import RunStore
from evalui.ui import BenchmarkTab, launcher
from evalui.ui.columns import localized
from evalui.ui.i18n.strings import t
from evalui.ui.run_view import finished_summary
from evalui.ui.tabs.endpoint_panel import EndpointInputs, endpoint_settings
from evalui.ui.tabs.option_inputs import option_input
from evalui.ui.viewer import page as viewer

COLUMNS = ["id", "category", "question", "prediction", "ground truth", "verdict", "error type", "detail", "latency s"]
# The short columns get a fixed width that holds their longest word (a share of a narrow page split
# "correct" in two); question, prediction and truth share the rest. Wrapped, so nothing scrolls sideways.
WIDTHS = ["150px", "120px", "18%", "14%", "14%", "88px", "120px", "8%", "72px"]


def sample_table(store: RunStore, exp_id: str | None) -> pd.DataFrame:
    """The sample table with calls written as calls (``f(a=1)``, one per line) instead of escaped JSON."""
    if not exp_id:
        return pd.DataFrame(columns=COLUMNS)
    frame = samples_frame(store, exp_id)
    samples = {s.sample_id: s for s in store.samples(exp_id)}
    frame["prediction"] = [pretty_prediction(samples[i].prediction) for i in frame["id"]]
    frame["ground truth"] = [pretty_truth(_parsed(truth_of(samples[i]))) for i in frame["id"]]
    for row, sample_id in enumerate(frame["id"]):
        sample = samples[sample_id]
        if sample.group in MULTI_TURN_CATEGORIES:  # one line per turn; the turns view has the rest
            entry = stored_entry(sample)
            predicted, gold = turns_summary(sample.prediction, entry.possible_answer if entry else None)
            frame.at[row, "prediction"], frame.at[row, "ground truth"] = predicted, gold
    return frame[COLUMNS]


def _parsed(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text  # "no call" / "any call" for the relevance categories


def results_view(store: RunStore, exp_id: str | None):
    accuracy, errors, table, files, sensitivity, board = _results(store, exp_id)
    return accuracy, errors, localized(table), files, sensitivity, board


def _results(store: RunStore, exp_id: str | None):
    """(accuracy chart, error chart, sample table, files, format-sensitivity chart, the leaderboard's
    overall score with the parts run) of a run, from the store."""
    if not exp_id or store.experiment(exp_id) is None:
        return None, None, sample_table(store, None), None, None, ""
    summary = finished_summary(store, exp_id)
    if not summary:  # a run going: its accuracy so far (the launcher rebuilds this every few seconds)
        so_far = launcher.accuracy_so_far(store, exp_id, "Accuracy per category so far (95% CI)")
        return so_far, None, sample_table(store, exp_id), None, None, ""
    accuracy = accuracy_bars(summary["by_category"], "Accuracy per category (95% CI)")
    errors = count_bars(summary["error_types"], "Error types") if summary["error_types"] else None
    folder = Path(summary["out_dir"])
    files = [str(p) for p in sorted(folder.glob("BFCL_v4_*_result.json"))]
    files += [str(folder / name) for name in ("report.md", "samples.jsonl", "accuracy.html", "format_sensitivity.html",
                                              "plotly.min.js") if (folder / name).exists()]
    files += [str(p) for p in sorted(folder.glob("data_*.csv"))]  # the leaderboard's CSVs
    sensitivity = summary.get("format_sensitivity")
    # Figures and category names only (no model text), with the partial-score warning of report.md.
    board = "\n".join(leaderboard_lines(summary.get("leaderboard") or {}))
    return (accuracy, errors, sample_table(store, exp_id), files,
            format_sensitivity_chart(sensitivity) if sensitivity else None, board)


def build(demo, store: RunStore, endpoint: EndpointInputs) -> None:
    with gr.Row():
        # "all": the whole leaderboard set, the one the BFCL v4 overall score is computed over.
        categories = option_input(BENCHMARK, "categories", elem_id="bfcl-categories",
                                  choices=[("Full BFCL v4 (every leaderboard category)", "all"), *ALL_CATEGORIES])
        # Five per category, so a first click gives a result in seconds (the option's own default is all).
        limit = option_input(BENCHMARK, "limit", value=5, minimum=0, elem_id="bfcl-limit")
        mode = option_input(BENCHMARK, "mode", info=t("bfcl.mode_info"), elem_id="bfcl-mode")
        concurrency = gr.Slider(1, 64, value=8, step=1, label=t("run.concurrency"), elem_id="bfcl-concurrency")
        epochs = launcher.epochs_input("bfcl")
    exp_id = gr.Textbox(label=t("run.id"), placeholder=t("run.id_hint"),
                        elem_id="bfcl-exp-id")
    parts = launcher.build_controls("bfcl", t("bfcl.start"))
    with gr.Row():
        accuracy_plot = gr.Plot(label=t("bfcl.accuracy"), elem_id="bfcl-accuracy-plot")
        error_plot = gr.Plot(label=t("bfcl.errors"), elem_id="bfcl-error-plot")
    # Filled for runs with format_sensitivity: accuracy per prompt configuration, the spread marked.
    format_plot = gr.Plot(label="Format sensitivity", elem_id="bfcl-format-sensitivity-plot")
    leaderboard_view = gr.Markdown("", elem_id="bfcl-leaderboard")
    samples = gr.Dataframe(sample_table(store, None), label=t("bfcl.samples"), wrap=True, max_height=480,
                           interactive=False, column_widths=WIDTHS, elem_id="bfcl-samples")
    with gr.Row():
        turn_id = gr.Textbox(label=t("bfcl.turns_sample"), placeholder=t("bfcl.turns_hint"), scale=4,
                             elem_id="bfcl-turns-id")
        turn_show = gr.Button(t("bfcl.turns_show"), scale=1, elem_id="bfcl-turns-show")
    turn_view = gr.Markdown("", elem_id="bfcl-turns-view")
    downloads = gr.File(label=t("bfcl.downloads"), file_count="multiple", elem_id="bfcl-downloads")

    def prepare(base_url, model, api_key, temperature, max_tokens, timeout, chosen, limit_value, mode_value,
                concurrency_value, exp_id_value, prices=(None, None), **start):
        settings = endpoint_settings(base_url, model, api_key, temperature, max_tokens, timeout, *prices)
        options = BfclOptions(categories=list(chosen or []), limit=int(limit_value or 0), mode=mode_value)
        # The endpoint is checked before anything is registered: a dead one leaves no empty run behind.
        started = begin_run(store, BENCHMARK, options, settings, exp_id=(exp_id_value or "").strip() or None,
                            concurrency=int(concurrency_value), **start)

        def work(run):
            run.say(f"run {started.exp_id} started against {settings.host} ({settings.model})")
            return started.execute(concurrency=int(concurrency_value), cancel=run.cancel,
                                   on_progress=lambda p: run.say(p.message))

        return started.exp_id, work

    current = launcher.wire(demo, store, parts, benchmark="bfcl",
                  inputs=[*endpoint.components(), categories, limit, mode, concurrency, exp_id],
                  prepare=prepare, results=[accuracy_plot, error_plot, samples, downloads, format_plot, leaderboard_view],
                  results_view=lambda run_id: results_view(store, run_id), api_prefix="bfcl", epochs=epochs,
                  prices=endpoint.price_components())
    viewer.include(demo, store, parts)

    def picked(run_id, event: gr.SelectData):
        row = getattr(event, "row_value", None) or []
        sample_id = str(row[0]) if row else ""
        return sample_id, stored_sample_turns(store, run_id, sample_id)

    turn_show.click(lambda run_id, sample_id: stored_sample_turns(store, run_id, sample_id), [current, turn_id],
                    [turn_view], api_name="bfcl_turns")
    samples.select(picked, [current], [turn_id, turn_view], api_visibility="private")


TABS = (BenchmarkTab("tab.bfcl", BENCHMARK.name, build),)
