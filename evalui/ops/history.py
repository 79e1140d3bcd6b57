"""Every stored run, across benchmarks: list, compare, browse, resume and delete."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from evalui.config import runs_dir
from evalui.core.benchmark import plain_prediction
from evalui.core.run_config import RunConfig
from evalui.endpoint.settings import EndpointSettings
from evalui.endpoint.url_policy import REDACTED
from evalui.reports.charts import CHART_WORDS
from evalui.run.runner import Progress
from evalui.store.run_store import RunStore

RUN_COLUMNS = ["exp_id", "benchmark", "model", "endpoint", "date", "status", "done", "metric", "value", "tokens",
               "duration s"]
SAMPLE_COLUMNS = ["sample", "group", "stage", "verdict", "prediction", "error", "latency s", "tokens"]
SHOWN_CHARS = 600


def spec_of(benchmark: str):
    """The benchmark's spec, or None for a run of a benchmark this evalui no longer knows."""
    from evalui.core import registry

    return registry.find(benchmark)


def headline(experiment: dict) -> tuple[str, float | None]:
    """(what the number is, the number) that sums a run up, as its benchmark defines it."""
    summary = experiment.get("summary") or {}
    spec = spec_of(experiment["benchmark"])
    if spec is None or not summary:
        return "", None
    return spec.headline(summary)


def groups(experiment: dict) -> dict[str, dict]:
    summary = experiment.get("summary") or {}
    return summary.get("by_category") or summary.get("by_level") or {}


def runs_frame(store: RunStore) -> pd.DataFrame:
    rows = []
    for experiment in store.experiments():
        counts = experiment["counts"]  # kept in the run's row: the listing reads no sample
        label, value = headline(experiment)
        summary = experiment.get("summary") or {}
        rows.append({
            "exp_id": experiment["exp_id"],
            "benchmark": experiment["benchmark"],
            "model": experiment["model"],
            "endpoint": experiment["endpoint_host"],
            "date": datetime.fromtimestamp(experiment["created_at"]).strftime("%Y-%m-%d %H:%M"),
            "status": experiment["status"],
            "done": f"{counts['judged']}/{counts['total']}",
            "metric": label,
            "value": round(value, 4) if value is not None else None,
            "tokens": counts["tokens"],
            "duration s": round(summary["duration_s"], 1) if summary.get("duration_s") is not None else None,
        })
    return pd.DataFrame(rows, columns=RUN_COLUMNS)


def comparison_figures(store: RunStore, exp_ids: list[str],
                       words: Mapping[str, str] = CHART_WORDS) -> tuple[go.Figure | None, go.Figure | None]:
    """Accuracy per category or level, side by side; and the headline figure against tokens, with
    ``words`` for the charts' own (evalui.reports.charts.CHART_WORDS)."""
    experiments = [e for e in (store.experiment(i) for i in exp_ids) if e]
    if not experiments:
        return None, None
    mixed = benchmarks_of(experiments)
    if len(mixed) > 1:
        # Accuracy of one benchmark and a pass rate of another on one axis would read as comparable.
        raise ValueError(f"compare runs of one benchmark at a time (these are {', '.join(mixed)})")
    bars = go.Figure()
    for experiment in experiments:
        per_group = groups(experiment)
        if per_group:
            names = list(per_group)
            bars.add_bar(name=f"{experiment['exp_id']} ({experiment['model']})", x=names,
                         y=[per_group[n]["rate"] for n in names])
    bars.update_layout(barmode="group", title=words["groups_compared"], yaxis={"range": [0, 1.05], "tickformat": ".0%"})
    scatter = go.Figure()
    for experiment in experiments:
        label, value = headline(experiment)
        if value is not None:
            scatter.add_scatter(x=[store.progress(experiment["exp_id"])["tokens"]], y=[value], mode="markers+text",
                                name=experiment["exp_id"], text=[experiment["model"]], textposition="top center",
                                marker={"size": 14})
    scatter.update_layout(title=words["headline_by_tokens"], xaxis_title=words["tokens"], yaxis_title=words["accuracy_or_rate"],
                          yaxis={"range": [0, 1.05], "tickformat": ".0%"})
    return bars, scatter


def benchmarks_of(experiments: list[dict]) -> list[str]:
    return sorted({e["benchmark"] for e in experiments})


def samples_frame(store: RunStore, exp_id: str) -> pd.DataFrame:
    experiment = store.experiment(exp_id)
    benchmark = experiment["benchmark"] if experiment else ""
    spec = spec_of(benchmark)
    render = spec.render_prediction if spec is not None else plain_prediction
    rows = []
    for sample in store.samples(exp_id):
        rows.append({"sample": sample.sample_id, "group": sample.group, "stage": sample.stage,
                     "verdict": verdict_word(benchmark, sample),
                     "prediction": shorten(render(sample.prediction)),
                     "error": shorten(sample.error or ""),
                     "latency s": round(sample.latency_s, 3) if sample.latency_s is not None else None,
                     "tokens": sample.prompt_tokens + sample.completion_tokens})
    return pd.DataFrame(rows, columns=SAMPLE_COLUMNS)


def verdict_word(benchmark: str, sample) -> str:
    """What the sample's outcome is called in its own task: a generated problem is valid, not correct."""
    if sample.stage != "judged":
        return "error" if sample.error else sample.stage
    verdict = sample.verdict or {}
    if verdict.get("scored") is False:
        return "unscored"  # a hidden answer (GAIA's test split)
    if verdict.get("outcome"):
        return verdict["outcome"]  # win, loss or tie
    spec = spec_of(benchmark)
    yes, no = spec.verdict_words if spec else ("correct", "wrong")
    return yes if sample.correct else no


def shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def artefacts(experiment: dict) -> list[str]:
    folder = experiment.get("out_dir")
    if not folder or not Path(folder).is_dir():
        return []
    return [str(p) for p in sorted(Path(folder).iterdir()) if p.is_file()][:50]


def delete_run(store: RunStore, exp_id: str) -> None:
    """Remove the run from the store, and its folder when that folder is evalui's own."""
    experiment = store.experiment(exp_id)
    if experiment is None:
        raise ValueError(f"no run named {exp_id!r}")
    folder = Path(experiment["out_dir"]).resolve() if experiment.get("out_dir") else None
    store.delete_experiment(exp_id)
    if folder and folder.parent == runs_dir().resolve() and folder.name == exp_id:
        shutil.rmtree(folder, ignore_errors=True)


def resume_run(store: RunStore, exp_id: str, settings: EndpointSettings, *, concurrency: int | None = None,
               cancel: threading.Event | None = None, on_progress: Callable[[Progress], None] | None = None) -> dict:
    """Run the unfinished samples of a stored run again, with the given endpoint (its key is not stored)."""
    experiment = store.experiment(exp_id)
    if experiment is None:
        raise ValueError(f"no run named {exp_id!r}")
    options = {"concurrency": concurrency, "cancel": cancel, "on_progress": on_progress}
    if "options" not in (experiment["config"] or {}):  # the raw row: an earlier evalui stored no options
        raise ValueError(f"{exp_id} was stored by an earlier evalui; resume it from its benchmark's tab or command")
    if RunConfig.of(experiment).options.get("agent"):
        raise ValueError("runs of a user's agent resume from the command line, with --agent")
    from evalui.run import lifecycle

    return lifecycle.resume(store, exp_id, settings, **options)


def stored_endpoint(experiment: dict, api_key: str) -> EndpointSettings:
    """The run's own endpoint settings, with a key supplied now (keys are never stored)."""
    saved = RunConfig.of(experiment).endpoint or {}
    if not saved.get("base_url"):
        raise ValueError("this run has no stored endpoint")
    if REDACTED in saved["base_url"]:
        raise ValueError("this run's base URL carried credentials, which are never stored: resume it from its "
                         "benchmark's tab with its run id and the full base URL")
    return EndpointSettings(base_url=saved["base_url"], model=saved.get("model") or experiment["model"],
                            api_key=api_key, temperature=saved.get("temperature", 0.0),
                            max_tokens=saved.get("max_tokens"), timeout_s=saved.get("timeout_s", 60.0),
                            max_retries=saved.get("max_retries", 4),
                            max_response_bytes=saved.get("max_response_bytes"))
