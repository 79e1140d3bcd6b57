"""The BFCL tab: start, watch, cancel and read BFCL runs. A run's page is the launcher, a header of
summary cards (figures, leaderboard, charts, the download menu), then the viewer, which shows each
sample (a multi-turn one turn by turn, through the benchmark's rendering hooks)."""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from evalui.benchmarks.bfcl.categories import category_groups
from evalui.benchmarks.bfcl.format_sensitivity import chart as format_sensitivity_chart
from evalui.benchmarks.bfcl.report import OTHER_SUBTOTALS, PART_NAMES
from evalui.benchmarks.bfcl.scoring.single_turn import ALL_CATEGORIES
from evalui.benchmarks.bfcl.spec import BENCHMARK, BfclOptions
from evalui.benchmarks.bfcl.turns import stored_sample_turns
from evalui.reports.charts import accuracy_bars, count_bars
from evalui.reports.markdown import percent
from evalui.run.run import prepare as begin_run
from evalui.store.run_store import RunStore
from evalui.ui import BenchmarkTab, launcher
from evalui.ui.i18n.strings import STRINGS, say, t
from evalui.ui.run_view import finished_summary
from evalui.ui.tabs import downloads, run_header
from evalui.ui.tabs.endpoint_panel import EndpointInputs, endpoint_settings
from evalui.ui.tabs.option_inputs import option_input
from evalui.ui.viewer import page as viewer


def part_name(key: str) -> str:
    """A leaderboard part's name in the visitor's language (report.md's English when the catalog has none)."""
    english = {**PART_NAMES, **OTHER_SUBTOTALS}.get(key, key)
    return say(f"bfcl.part.{key}") if f"bfcl.part.{key}" in STRINGS else english


def leaderboard_markdown(board: dict) -> str:
    """The leaderboard as report.md states it (overall score, parts run, the partial-score warning),
    with each part on a line of its own instead of report.md's wide table, which a card cannot hold;
    in the visitor's language (report.md itself stays English). Figures and category names only: no
    model text."""
    if not board or "overall" not in board:
        return ""
    lines = ["", say("bfcl.board_overall", overall=percent(board["overall"])),
             say("bfcl.board_parts_run", parts=say("bfcl.board_list").join(part_name(p) for p in board["parts_run"])
                 or say("bfcl.board_none"))]
    if board.get("partial"):
        missing = say("bfcl.board_list").join(part_name(p) for p in board["parts_missing"])
        detail = say("bfcl.board_not_run", missing=missing) if missing else say("bfcl.board_run_in_part")
        lines += ["", say("bfcl.board_partial", detail=detail)]
    if board.get("subset"):
        lines += ["", say("bfcl.board_subset")]
    lines += ["", "", say("bfcl.board_csv"), ""]
    for key in [*PART_NAMES, *OTHER_SUBTOTALS]:
        part = board.get(key)
        if part:
            weight = say("bfcl.board_weight", weight=f"{part['weight'] * 100:.0f}") if "weight" in part else ""
            lines.append(say("bfcl.board_part", name=part_name(key), accuracy=percent(part["accuracy"]),
                             weight=weight, total=part["total"])
                         + ("" if part["complete"] else say("bfcl.board_part_partial")))
    return "\n".join(lines)


def overall_markdown(board: dict) -> str:
    """The overall score's line of the figures card: the figures report.md's overall line states, in
    the visitor's language (report.md itself stays English)."""
    if "overall" not in board:
        return ""
    return say("bfcl.overall", overall=percent(board["overall"])) + (say("bfcl.overall_partial") if board.get("partial") else "")


def results_view(store: RunStore, exp_id: str | None):
    """(figures, accuracy chart, error chart, format-sensitivity chart, leaderboard, download menu,
    files) of a run, from its summary: the samples are the viewer's, which pages its own rows."""
    hidden = run_header.chart(None)
    if not exp_id or store.experiment(exp_id) is None:
        return "", hidden, hidden, hidden, "", *downloads.filled(None)
    summary = finished_summary(store, exp_id)
    if not summary:  # a run going: its accuracy so far (the launcher rebuilds this every few seconds)
        so_far = launcher.accuracy_so_far(store, exp_id, say("bfcl.chart_accuracy_so_far"))
        return "", run_header.chart(so_far), hidden, hidden, "", *downloads.filled(None)
    accuracy = accuracy_bars(summary["by_category"], say("bfcl.chart_accuracy"))
    errors = count_bars(summary["error_types"], say("bfcl.errors")) if summary["error_types"] else None
    folder = Path(summary["out_dir"])
    files = [str(p) for p in sorted(folder.glob("BFCL_v4_*_result.json"))]
    files += [str(folder / name) for name in ("report.md", "samples.jsonl", "accuracy.html", "format_sensitivity.html",
                                              "plotly.min.js") if (folder / name).exists()]
    files += [str(p) for p in sorted(folder.glob("data_*.csv"))]  # the leaderboard's CSVs
    sensitivity = summary.get("format_sensitivity")
    board = leaderboard_markdown(summary.get("leaderboard") or {})
    overall = overall_markdown(summary.get("leaderboard") or {})
    figures = "\n\n".join(part for part in (run_header.figures_markdown(store, exp_id, summary), overall) if part)
    return (figures, run_header.chart(accuracy), run_header.chart(errors),
            run_header.chart(format_sensitivity_chart(sensitivity) if sensitivity else None), board,
            *downloads.filled(files))


def build(demo, store: RunStore, endpoint: EndpointInputs) -> None:
    with gr.Row():
        # The groups first ("all": the leaderboard set BFCL v4's overall score is computed over), then each one.
        categories = option_input(BENCHMARK, "categories", elem_id="bfcl-categories", choices=ALL_CATEGORIES,
                                  groups=category_groups())
        # Five per category, so a first click gives a result in seconds (the option's own default is all).
        limit = option_input(BENCHMARK, "limit", value=5, minimum=0, elem_id="bfcl-limit")
        mode = option_input(BENCHMARK, "mode", info=t("bfcl.mode_info"), elem_id="bfcl-mode")
        concurrency = gr.Slider(1, 64, value=8, step=1, label=t("run.concurrency"), elem_id="bfcl-concurrency")
        epochs = launcher.epochs_input("bfcl")
        # In the form's row, not a line of its own: the run page keeps its height for the viewer.
        exp_id = gr.Textbox(label=t("run.id"), placeholder=t("run.id_hint"), elem_id="bfcl-exp-id")
    parts = launcher.build_controls("bfcl", t("bfcl.start"))
    with run_header.cards("bfcl"):
        with run_header.card():
            figures = gr.Markdown("", elem_id="bfcl-figures")
        accuracy_plot = run_header.plot(t("bfcl.accuracy"), "bfcl-accuracy-plot", scale=2)
        error_plot = run_header.plot(t("bfcl.errors"), "bfcl-error-plot")
        # Drawn only for runs with format_sensitivity: accuracy per prompt configuration, the spread marked.
        format_plot = run_header.plot(t("run_page.format_sensitivity"), "bfcl-format-sensitivity-plot")
        with run_header.menus("bfcl"):
            # The overall score is on the figures card; its parts and their table, opened on demand.
            with gr.Accordion(t("run_page.leaderboard"), open=False, elem_id="bfcl-leaderboard-menu"):
                leaderboard_view = gr.Markdown("", elem_id="bfcl-leaderboard")
            menu = downloads.menu("bfcl-downloads", label=t("bfcl.downloads"))
    # The page shows a multi-turn sample in the viewer's transcript; /bfcl_turns (sample id -> its
    # turns as Markdown, for the session's run) stays for API callers, on components never drawn.
    turn_id = gr.Textbox(visible=False)
    turn_show = gr.Button(visible=False)
    turn_view = gr.Markdown(visible=False)

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
                  prepare=prepare, results=[figures, accuracy_plot, error_plot, format_plot, leaderboard_view,
                           *menu.outputs()],
                  results_view=lambda run_id: results_view(store, run_id), api_prefix="bfcl", epochs=epochs,
                  prices=endpoint.price_components())
    viewer.include(demo, store, parts)
    turn_show.click(lambda run_id, sample_id: stored_sample_turns(store, run_id, sample_id), [current, turn_id],
                    [turn_view], api_name="bfcl_turns")


TABS = (BenchmarkTab("tab.bfcl", BENCHMARK.name, build),)
