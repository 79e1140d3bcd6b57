"""The AIME tabs: generate problems (shown as they are made), then judge them and measure their
win rate against real AIME problems, with charts and the report."""

from __future__ import annotations

from pathlib import Path

import gradio as gr
import plotly.graph_objects as go

from evalui.benchmarks.aime import companions
from evalui.benchmarks.aime.options import GenerateOptions, JudgeOptions, WinrateOptions
from evalui.benchmarks.aime.prompts import TOPICS
from evalui.benchmarks.aime.spec import GENERATE, GENERATION, JUDGE, JUDGING, WINRATE, WINRATE_SPEC, generated_problems
from evalui.config import runs_dir
from evalui.core.run_config import RunConfig
from evalui.errors import InputError
from evalui.reports.charts import fitted, judge_dimension_bars, score_distribution, win_loss_tie
from evalui.review.calibration import calibrate
from evalui.run.run import prepare as begin_run
from evalui.stats.calibration import MIN_LABELS, UNINFORMATIVE_JUDGE
from evalui.stats.metrics import JUDGE_DIMENSIONS
from evalui.store.run_store import RunStore
from evalui.ui import BenchmarkTab, ReviewLink, launcher
from evalui.ui.i18n.strings import STRINGS, chart_words, t
from evalui.ui.latex import LATEX_DELIMITERS, inert_markdown, problem_markdown
from evalui.ui.refresh import files_refresh_s
from evalui.ui.tabs import downloads, run_header
from evalui.ui.tabs.endpoint_panel import EndpointInputs, endpoint_settings
from evalui.ui.tabs.option_inputs import option_input
from evalui.ui.viewer import page as viewer
from evalui.ui.web.access import bare_names, say

REFERENCE_SOURCES = {"Hub, else bundled": "auto", "Hugging Face Hub": "hub", "Bundled sample": "bundled"}
AUTO_REFERENCES = "Hub, else bundled"


def reference_choices() -> list[tuple]:
    """The reference sources as (label, value): the values stay the English names the handlers and
    API callers use, the labels come from the catalog."""
    return [(t(f"aime.source_{option}"), name) for name, option in REFERENCE_SOURCES.items()]


def topic_choices() -> list[tuple]:
    """The topics as (label, value): the value is the topic the prompt names, in English."""
    return [(t(f"aime.topic.{topic}") if f"aime.topic.{topic}" in STRINGS else topic, topic) for topic in TOPICS]
SHOWN_PROBLEMS = 20


def generation_view(store: RunStore, exp_id: str | None):
    """(the newest problems, download menu, files) of a generation run."""
    experiment = store.experiment(exp_id) if exp_id else None
    if experiment is None:
        return "", *downloads.filled(None)
    problems = generated_problems(experiment, store.samples(exp_id, stages=("judged",)))
    text = "\n\n---\n\n".join(problem_markdown(p) for p in reversed(problems[-SHOWN_PROBLEMS:]))
    summary = experiment.get("summary") or {}
    files = [summary[k] for k in ("output", "report") if summary.get(k) and Path(summary[k]).exists()]
    return text or say("aime.no_problem"), *downloads.filled(files)


def build_generation(demo, store: RunStore, endpoint: EndpointInputs) -> None:
    gr.Markdown(t("aime.intro"))
    with gr.Row():
        count = option_input(GENERATION, "n", value=5, minimum=1, label=t("aime.count"), elem_id="aime-count")
        topics = option_input(GENERATION, "topics", choices=topic_choices(), label=t("aime.topics"), elem_id="aime-topics")
        seed = option_input(GENERATION, "seed", label=t("aime.seed"), elem_id="aime-seed")
        references = gr.Radio(reference_choices(), value=AUTO_REFERENCES, label=t("aime.references"),
                              elem_id="aime-references")
        concurrency = gr.Slider(1, 16, value=4, step=1, label=t("run.concurrency"))
    exp_id = gr.Textbox(label=t("run.id"), placeholder=t("run.id_hint"),
                        elem_id="aime-exp-id")
    parts = launcher.build_controls("aime", t("aime.start"))
    problems = gr.Markdown(latex_delimiters=LATEX_DELIMITERS, elem_id="aime-problems")
    menu = downloads.menu("aime-downloads", label=t("aime.downloads"))

    def prepare(base_url, model, api_key, temperature, max_tokens, timeout, count_value, topic_values, seed_value,
                reference_label, concurrency_value, exp_id_value, prices=(None, None), **start):
        settings = endpoint_settings(base_url, model, api_key, temperature, max_tokens, timeout, *prices)
        options = GenerateOptions(n=int(count_value or 0), topics=list(topic_values or []), seed=int(seed_value or 0),
                                  reference_source=REFERENCE_SOURCES[reference_label])
        started = begin_run(store, GENERATION, options, settings, exp_id=(exp_id_value or "").strip() or None, **start)

        def work(run):
            run.say(f"generating {int(count_value)} problems with {settings.model}")
            return started.execute(concurrency=int(concurrency_value), cancel=run.cancel,
                                   on_progress=lambda p: run.say(p.message))

        return started.exp_id, work

    launcher.wire(demo, store, parts, benchmark=GENERATE,
                  inputs=[*endpoint.components(), count, topics, seed, references, concurrency, exp_id],
                  prepare=prepare, results=[problems, *menu.outputs()],
                  results_view=lambda run_id: generation_view(store, run_id), api_prefix="aime_generate",
                  live_results=True, prices=endpoint.price_components())
    viewer.include(demo, store, parts)


def file_choices() -> list[tuple[str, str]]:
    """Generated files, named relative to the runs folder: the page never learns the server's paths."""
    root = runs_dir()
    return [(name, name) for name in (str(p.relative_to(root)) for p in companions.generated_files(root))]


def generated_path(path: str | None) -> Path | None:
    """The file a choice names (relative to the runs folder; an absolute path from an API caller is
    taken as it is), or None when it lies outside the runs folder."""
    if not path:
        return None
    root = runs_dir().resolve()
    resolved = (root / path).resolve()
    return resolved if root in resolved.parents else None


def checked_file(path: str | None) -> Path:
    if not path:
        raise gr.Error(say("msg.need_file"))
    resolved = generated_path(path)
    if resolved is None:
        raise gr.Error(say("msg.file_outside"))
    return resolved


def generation_summary(store: RunStore, generated: Path) -> dict | None:
    for experiment in store.experiments(GENERATE):
        summary = experiment.get("summary") or {}
        if summary.get("output") and Path(summary["output"]).resolve() == generated.resolve():
            return summary
    return None


def file_view(store: RunStore, path: str | None):
    """(judge dimensions, score distribution, win/loss/tie (each drawn only when it has data), download
    menu, files, corrected figures, calibration chart) for a generated file."""
    if not path:
        return (*(run_header.chart(None) for _ in range(3)), *downloads.filled(None), *calibration_view(None))
    generated = Path(path)
    judge = companions.read_companion_summary(generated, "_judge.json")
    winrate = companions.read_companion_summary(generated, "_winrate.json")
    generation = generation_summary(store, generated)
    files = [generated]
    if judge and winrate and generation:
        files.append(Path(companions.write_evaluation_report(generation, judge, winrate)))
    files += [companions.companion(generated, s) for s in ("_judge_report.md", "_winrate_report.md", "_judge.json",
                                                     "_winrate.json")]
    words = chart_words()
    dimension_names = {d: say(f"verify.dim.{d}") for d in JUDGE_DIMENSIONS}
    return (run_header.chart(judge_dimension_bars(judge["dimensions"], words, dimension_names) if judge else None),
            run_header.chart(score_distribution(judge["score_distribution"], words) if judge else None),
            run_header.chart(win_loss_tie(winrate, say("aime.chart_winrate"), words) if winrate else None),
            *downloads.filled(f for f in files if f.exists()), *calibration_view(generated))


# the judge's figures corrected by the reviewers -------------------------------------------------
CALIBRATED_FIGURES = (("pass_rate", True), ("mean_score", False), ("win_rate", True))
ESTIMATES = ("naive", "human_only", "corrected")


def _figure_cell(estimate: dict | None, rate: bool, chosen: bool) -> str:
    if not estimate or estimate.get("value") is None:
        return "–"

    def number(x: float) -> str:
        return f"{x:.1%}" if rate else f"{x:.2f}"

    text = f"{number(estimate['value'])} ({number(estimate['low'])}–{number(estimate['high'])})"
    return f"**{text}** ✓" if chosen else text


def _why_not(estimate: dict) -> str | None:
    """Why a figure was not corrected, in the visitor's language: from its causes (the statistics say
    their reason in English); the reason as it is for an estimate stored without them."""
    causes = (estimate.get("details") or {}).get("causes")
    if not causes:
        return estimate.get("reason")
    return "; ".join(say(f"calib.cause.{c['code']}", **c) for c in causes)


def calibration_markdown(block: dict) -> str:
    """The three figures side by side, each with its 95 % interval, the estimate to report marked, and
    a warning when the calibration set is too small or the judge uninformative."""
    lines = [say("calib.counts", reviewed=block["n_labelled"], unreviewed=block["n_unlabelled"]), ""]
    passes = block.get("pass_rate") or {}
    details = (passes.get("corrected") or {}).get("details") or {}
    sensitivity, specificity = details.get("sensitivity"), details.get("specificity")
    if block["n_labelled"] < MIN_LABELS:
        lines += [say("calib.too_few", n=block["n_labelled"], min=MIN_LABELS), ""]
    if UNINFORMATIVE_JUDGE in ((passes.get("corrected") or {}).get("flags") or ()) or (
            sensitivity is not None and specificity is not None and sensitivity + specificity <= 1):
        lines += [say("calib.uninformative", sum=f"{(sensitivity or 0) + (specificity or 0):.2f}"), ""]
    lines += [say("calib.header"), "|---|---|---|---|---|"]
    reasons = []
    for name, rate in CALIBRATED_FIGURES:
        figure = block.get(name) or {}
        if "estimate" not in figure:  # no pairs for the win rate
            continue
        cells = [_figure_cell(figure.get(e), rate, figure["estimate"] == e) for e in ESTIMATES]
        lines.append(f"| {say('calib.' + name)} | " + " | ".join(cells) + f" | {say('calib.' + figure['estimate'])} |")
        reason = _why_not(figure.get("corrected") or {})
        if reason:
            reasons.append(f"{say('calib.' + name)}: {reason}")
    if sensitivity is not None and specificity is not None:
        lines += ["", say("calib.judge_rates", sensitivity=f"{sensitivity:.2f}", specificity=f"{specificity:.2f}")]
    if reasons:
        lines += ["", say("calib.why", reasons="; ".join(reasons))]
    return "\n".join(lines)


def calibration_chart(block: dict) -> go.Figure:
    """Per judge score band: the problems the reviewers passed, failed, and have not reviewed, counted."""
    rows = block.get("by_judge_score") or []
    bands = [f"{r['band']}<br>n={r['problems']}" for r in rows]
    counts = {"calib.human_pass": [r["human_passes"] for r in rows],
              "calib.human_fail": [r["reviewed"] - r["human_passes"] for r in rows],
              "calib.unreviewed": [r["problems"] - r["reviewed"] for r in rows]}
    colours = {"calib.human_pass": "#2e7d32", "calib.human_fail": "#c62828", "calib.unreviewed": "#b0bec5"}
    figure = go.Figure([go.Bar(name=say(key), x=bands, y=values, text=[str(v) if v else "" for v in values],
                               textposition="inside", marker_color=colours[key]) for key, values in counts.items()])
    figure.update_layout(barmode="stack", xaxis_title=say("calib.band_axis"), yaxis_title=say("calib.count_axis"),
                         legend={"orientation": "h", "y": -0.3})
    return fitted(figure, say("calib.chart"))


def calibration_view(path: str | Path | None) -> tuple[str, go.Figure | None]:
    """(the corrected figures as Markdown, the calibration chart) for a generated file, read afresh
    from its judge, win-rate and reviews files."""
    if not path:
        return say("calib.none"), None
    try:
        block = calibrate(path)
    except InputError as exc:
        if not companions.companion(Path(path), "_judge.json").exists():
            return say("calib.not_judged"), None
        return say("calib.unreadable", reason=inert_markdown(bare_names(str(exc)))), None
    return calibration_markdown(block), calibration_chart(block)


def build_results(demo, store: RunStore, endpoint: EndpointInputs):
    gr.Markdown(t("aime.results_intro"))
    with gr.Row():
        generated = gr.Dropdown(choices=[], label=t("aime.file"), elem_id="aime-file", scale=4)
        refresh = gr.Button(t("run.refresh"), scale=1, elem_id="aime-file-refresh")
    with gr.Row():
        judge_model = gr.Textbox(label=t("aime.judge_model"), placeholder=t("aime.judge_model_hint"), elem_id="aime-judge-model")
        real_source = gr.Radio(reference_choices(), value=AUTO_REFERENCES, label=t("aime.real"))
        seed = gr.Number(value=0, precision=0, label=t("aime.pair_seed"))
    with gr.Row():
        with gr.Column():
            judge_parts = launcher.build_controls("aime-judge", t("aime.judge_start"))
        with gr.Column():
            winrate_parts = launcher.build_controls("aime-winrate", t("aime.winrate_start"))
    with run_header.cards("aime-results"):
        dimensions = run_header.plot(t("aime.dimensions"), "aime-judge-plot")
        distribution = run_header.plot(t("aime.distribution"), "aime-score-plot")
        outcomes = run_header.plot(t("aime.outcomes"), "aime-winrate-plot")
    with gr.Row():
        with gr.Column(scale=3):
            gr.Markdown(f"### {t('calib.title')}")
            calibration = gr.Markdown(elem_id="aime-calibration")
            calibration_refresh = gr.Button(t("calib.refresh"), elem_id="aime-calibration-refresh", size="sm")
        calibration_plot = gr.Plot(label=t("calib.chart"), elem_id="aime-calibration-plot", scale=2)
    menu = downloads.menu("aime-results-downloads", label=t("aime.results_downloads"))
    review = gr.Button(t("aime.review"), elem_id="aime-review")
    results = [dimensions, distribution, outcomes, *menu.outputs(), calibration, calibration_plot]

    def judge_endpoint(base_url, api_key, temperature, max_tokens, timeout, model, judge_name, prices):
        # The panel's prices are its model's: a judge of another name is costed at the table's price.
        if (judge_name or "").strip() != (model or "").strip():
            prices = (None, None)
        return endpoint_settings(base_url, judge_name, api_key, min(float(temperature or 0), 0.2), max_tokens,
                                 timeout, *prices)

    def prepare_judge(base_url, model, api_key, temperature, max_tokens, timeout, path, judge_name, *_,
                      prices=(None, None), **start):
        generated_file = checked_file(path)
        settings = judge_endpoint(base_url, api_key, temperature, max_tokens, timeout, model, judge_name, prices)
        started = begin_run(store, JUDGING, JudgeOptions(input=str(generated_file)), settings, **start)

        def work(run):
            return started.execute(cancel=run.cancel, on_progress=lambda p: run.say(p.message))

        return started.exp_id, work

    def prepare_winrate(base_url, model, api_key, temperature, max_tokens, timeout, path, judge_name, source, seed_value,
                        prices=(None, None), **start):
        generated_file = checked_file(path)
        settings = judge_endpoint(base_url, api_key, temperature, max_tokens, timeout, model, judge_name, prices)
        options = WinrateOptions(input=str(generated_file), seed=int(seed_value or 0), real_source=REFERENCE_SOURCES[source])
        started = begin_run(store, WINRATE_SPEC, options, settings, **start)

        def work(run):
            return started.execute(cancel=run.cancel, on_progress=lambda p: run.say(p.message))

        return started.exp_id, work

    def view_for_run(run_id):
        experiment = store.experiment(run_id) if run_id else None
        return file_view(store, RunConfig.of(experiment).options["input"]) if experiment else file_view(store, None)

    inputs = [*endpoint.components(), generated, judge_model, real_source, seed]
    choices = {generated: file_choices}
    launcher.wire(demo, store, judge_parts, benchmark=JUDGE, inputs=inputs, prepare=prepare_judge,
                  results=results, results_view=view_for_run, api_prefix="aime_judge", input_choices=choices,
                  prices=endpoint.price_components())
    launcher.wire(demo, store, winrate_parts, benchmark=WINRATE, inputs=inputs, prepare=prepare_winrate,
                  results=results, results_view=view_for_run, api_prefix="aime_winrate", input_choices=choices,
                  prices=endpoint.price_components())
    viewer.include(demo, store, judge_parts, title=t("aime.judge_samples"))
    viewer.include(demo, store, winrate_parts, title=t("aime.winrate_samples"))
    refresh.click(lambda: gr.update(choices=file_choices()), None, [generated], api_name="aime_files")
    generated.input(lambda path: file_view(store, str(checked_file(path)) if path else None), [generated], results,
                    api_name="aime_results")
    # Reviews are saved in the verification panel: the corrected figures are read afresh on demand.
    calibration_refresh.click(lambda path: calibration_view(checked_file(path) if path else None), [generated],
                              [calibration, calibration_plot], api_visibility="private")
    demo.load(lambda: gr.update(choices=file_choices()), None, [generated], api_visibility="private")
    # A file a generation run (here, from the CLI or another worker) writes joins the list by itself.
    known = gr.State(None)

    def files_now(listed):
        found = file_choices()
        return (gr.skip(), listed) if found == listed else (gr.update(choices=found), found)

    gr.Timer(files_refresh_s()).tick(files_now, [known], [generated, known], api_visibility="private",
                                     show_progress="hidden")
    return review, generated


def results_tab(demo, store: RunStore, endpoint: EndpointInputs) -> ReviewLink:
    """The results tab; its "Review these problems" opens the chosen file in the Verification panel."""
    review, generated = build_results(demo, store, endpoint)
    return ReviewLink(review, generated, generated_path)


TABS = (BenchmarkTab("tab.aime", "aime", build_generation), BenchmarkTab("tab.aime_results", "aime-results", results_tab))
