"""Plotly figures used by the dashboard and written next to reports."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import plotly.graph_objects as go

from evalui.run.pricing import unpriced
from evalui.stats.cost import pareto_front

PLOTLY_JS = "plotly.min.js"

# The words the charts draw themselves (axis names, legends, slices, hovers), in English: reports
# and written files use these. This layer knows no language; the dashboard passes its visitor's
# (evalui.ui.i18n.charts gives every key here in English and Chinese).
CHART_WORDS: Mapping[str, str] = MappingProxyType({
    "count": "count",
    "judge_dimensions": "LLM judge: average score per dimension",
    "score_distribution": "Distribution of average judge scores",
    "average_score": "average score",
    "problems": "problems",
    "generated_better": "generated better",
    "real_better": "real better",
    "tie": "tie",
    "run_cost": "cost of the run (USD)",
    "accuracy": "accuracy",
    "runs": "runs",
    "pareto_frontier": "Pareto frontier",
    "cost": "cost",
    "groups_compared": "Accuracy per category or level",
    "headline_by_tokens": "Headline figure against tokens",
    "tokens": "tokens",
    "accuracy_or_rate": "accuracy / rate",
})


def fitted(figure: go.Figure, title: str, **layout) -> go.Figure:
    """A layout whose title and labels fit a dashboard column: the title left-aligned in a font that
    leaves room for long category names, and margins that grow with the tick labels (automargin)
    instead of clipping them."""
    figure.update_layout(title={"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 14}},
                         margin={"t": 44, "b": 10, "l": 10, "r": 10}, **layout)
    figure.update_xaxes(automargin=True)
    figure.update_yaxes(automargin=True)
    return figure


def accuracy_bars(per_group: Mapping[str, Mapping], title: str = "Accuracy") -> go.Figure:
    """Bars of accuracy per group with 95 % Wilson intervals; values are dicts with rate/low/high.
    The share is written inside its bar, from the base, and the sample count under the group's
    name, so no label sits where an error bar is drawn."""
    names = list(per_group)
    rates = [per_group[n]["rate"] for n in names]
    figure = go.Figure(
        go.Bar(
            x=[f"{n}<br>n={per_group[n]['total']}" for n in names],
            y=rates,
            text=[f"{r * 100:.1f}%" for r in rates],
            textposition="inside",
            insidetextanchor="start",
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [per_group[n]["high"] - per_group[n]["rate"] for n in names],
                "arrayminus": [per_group[n]["rate"] - per_group[n]["low"] for n in names],
            },
        )
    )
    # A bar too short for its label hides the label (the axis still reads it) rather than shrinking it.
    return fitted(figure, title, yaxis={"range": [0, 1.05], "tickformat": ".0%"}, uniformtext={"minsize": 10,
                                                                                               "mode": "hide"})


def count_bars(counts: Mapping[str, int], title: str) -> go.Figure:
    names = list(counts)
    figure = go.Figure(go.Bar(x=names, y=[counts[n] for n in names]))
    return fitted(figure, title)


def histogram(values: list[float], title: str, x_title: str, words: Mapping[str, str] = CHART_WORDS) -> go.Figure:
    figure = go.Figure(go.Histogram(x=values, nbinsx=30))
    return fitted(figure, title, xaxis_title=x_title, yaxis_title=words["count"])


def write_html(figure: go.Figure, path) -> None:
    """The chart as a page that loads ``plotly.min.js`` from its own folder.

    Charts must open offline (and as downloads), so plotly.js is not fetched from a CDN; it sits
    beside the charts. That file is a hard link to one shared copy in the data folder, so writing
    a run's charts writes no 4.6 MB (a copy only where a link cannot be made, e.g. another disk).
    """
    path = Path(path)
    link_plotly_js(path.parent)
    path.write_text(figure.to_html(include_plotlyjs="directory", full_html=True), encoding="utf-8")


def link_plotly_js(folder: Path) -> Path:
    """``folder/plotly.min.js``, linked to the shared copy unless the folder has one already."""
    target = Path(folder) / PLOTLY_JS
    if target.exists():
        return target
    shared = shared_plotly_js()
    try:
        os.link(shared, target)
    except FileExistsError:
        pass  # another chart of the same run got there first
    except OSError:  # another file system, or links not allowed: a copy, written whole or not at all
        _atomic_write(target, lambda handle: _copy_into(shared, handle))
    return target


def shared_plotly_js() -> Path:
    """The one copy of plotly.js, written once per plotly version into the data folder."""
    import plotly
    from plotly.offline import get_plotlyjs

    from evalui.config import data_dir

    shared = data_dir() / "assets" / f"plotly-{plotly.__version__}.min.js"
    if not shared.exists():
        shared.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(shared, lambda handle: handle.write(get_plotlyjs().encode("utf-8")))
    return shared


def _copy_into(source: Path, handle) -> None:
    with source.open("rb") as data:
        shutil.copyfileobj(data, handle)


def _atomic_write(target: Path, fill) -> None:
    # A reader (or a link) must never see half a file: write beside it, then rename over it.
    handle = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", delete=False)
    try:
        with handle:
            fill(handle)
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def judge_dimension_bars(dimensions: Mapping[str, float], words: Mapping[str, str] = CHART_WORDS,
                         names: Mapping[str, str] | None = None) -> go.Figure:
    """The judge's mean score per dimension; ``names`` gives a dimension's shown name (default: its key)."""
    keys = list(dimensions)
    shown = [(names or {}).get(k, k) for k in keys]
    figure = go.Figure(go.Bar(x=shown, y=[dimensions[k] for k in keys], text=[f"{dimensions[k]:.2f}" for k in keys]))
    return fitted(figure, words["judge_dimensions"], yaxis={"range": [0, 5.2]})


def score_distribution(distribution: Mapping[float, int], words: Mapping[str, str] = CHART_WORDS) -> go.Figure:
    keys = sorted(float(k) for k in distribution)
    values = [distribution.get(k, distribution.get(str(k), 0)) for k in keys]
    figure = go.Figure(go.Bar(x=[f"{k:.1f}" for k in keys], y=values))
    return fitted(figure, words["score_distribution"], xaxis_title=words["average_score"],
                  yaxis_title=words["problems"])


def win_loss_tie(rates: Mapping[str, Mapping], title: str = "Win rate against real problems (both orders agree)",
                 words: Mapping[str, str] = CHART_WORDS) -> go.Figure:
    outcomes = ["win", "loss", "tie"]
    values = [rates[f"{outcome}_rate"]["successes"] for outcome in outcomes]
    figure = go.Figure(go.Pie(labels=[words["generated_better"], words["real_better"], words["tie"]], values=values,
                              hole=0.4, sort=False))
    return fitted(figure, title)


def priced_runs(experiments: list[dict]) -> tuple[list[dict], int]:
    """The finished runs that have an accuracy and a cost, as chart points, and how many finished
    runs had no price. A run that stopped early (cancelled, out of budget) is left out: its cost
    and accuracy are those of part of the benchmark."""
    points, without_price = [], 0
    for experiment in experiments:
        summary = experiment.get("summary") or {}
        if experiment.get("status") != "finished" or summary.get("accuracy") is None:
            continue
        cost = summary.get("cost") or {}
        if unpriced(cost):
            without_price += 1
            continue
        low, high = (summary.get("ci95") or [None, None])[:2]
        points.append({"exp_id": experiment["exp_id"], "model": experiment.get("model", ""), "cost": cost["usd"],
                       "accuracy": summary["accuracy"], "low": summary["accuracy"] if low is None else low,
                       "high": summary["accuracy"] if high is None else high, "judged": summary.get("judged"),
                       "per_correct": cost.get("per_correct_usd")})
    return points, without_price


# The frontier's labels are numbers (the note names the runs), kept apart for the smallest plot area
# the dashboard gives the chart: a label sits above its point, and two that would meet are one label.
PARETO_HEIGHT_PX = 420
PLOT_AREA_PX = (360, 300)  # width, height: the chart's height less its title and axes
LABEL_CHAR_PX, LABEL_LINE_PX = 7, 16  # a digit or a dash in plotly's 12 px font, and a line of it
_X_PADDING = 0.08


def _cost_range(points: list[dict]) -> list[float]:
    low, high = min(p["cost"] for p in points), max(p["cost"] for p in points)
    pad = (high - low) * _X_PADDING or max(abs(high) * _X_PADDING, 1e-6)
    return [low - pad, high + pad]


def frontier_labels(front: list[dict], x_range: list[float], y_range: list[float]) -> list[str]:
    """One text per frontier point, cheapest first: its number, or for points whose labels would
    meet, the numbers of the group ("2–4") on the first and "" on the others.

    Along the frontier cost and accuracy never fall, so a label kept apart from the label before
    it is farther still from all earlier ones: checking neighbours is enough."""
    width = PLOT_AREA_PX[0] / (x_range[1] - x_range[0])
    height = PLOT_AREA_PX[1] / (y_range[1] - y_range[0])
    widest = LABEL_CHAR_PX * (2 * len(str(len(front))) + 1) + 4  # the longest label ("12–14") and a margin
    labels = [""] * len(front)
    anchor = None
    for index, point in enumerate(front):
        near = anchor is not None and (
            abs(point["cost"] - front[anchor]["cost"]) * width < widest
            and abs(point["accuracy"] - front[anchor]["accuracy"]) * height < LABEL_LINE_PX)
        if near:
            labels[anchor] = f"{anchor + 1}–{index + 1}"
        else:
            anchor = index
            labels[index] = str(index + 1)
    return labels


def cost_pareto(points: list[dict], title: str = "Accuracy against cost", words: Mapping[str, str] = CHART_WORDS) -> go.Figure:
    """Each run's accuracy (with its 95 % interval) against its cost in USD, and the Pareto frontier:
    the runs no other run beats on both (as cheap or cheaper, as accurate or more), joined as steps.
    Only the frontier is labelled, with numbers; every run's name and figures are on hover."""
    figure = go.Figure()
    figure.add_scatter(
        x=[p["cost"] for p in points], y=[p["accuracy"] for p in points], mode="markers", name=words["runs"],
        customdata=[p["exp_id"] for p in points], hovertext=[p["model"] for p in points],
        hovertemplate=(f"%{{customdata}} (%{{hovertext}})<br>{words['cost']} $%{{x:.4f}}<br>{words['accuracy']} %{{y:.1%}}"
                       "<extra></extra>"),
        marker={"size": 11},
        error_y={"type": "data", "symmetric": False, "array": [p["high"] - p["accuracy"] for p in points],
                 "arrayminus": [p["accuracy"] - p["low"] for p in points]})
    front = [points[i] for i in pareto_front([(p["cost"], p["accuracy"]) for p in points])]
    x_range, y_range = _cost_range(points), [0, 1.05]
    figure.add_scatter(
        x=[p["cost"] for p in front], y=[p["accuracy"] for p in front], mode="lines+markers+text",
        name=words["pareto_frontier"], line={"shape": "hv", "dash": "dash"}, customdata=[p["exp_id"] for p in front],
        text=frontier_labels(front, x_range, y_range), textposition="top center", cliponaxis=False,
        hoverinfo="skip")
    return fitted(figure, title, xaxis_title=words["run_cost"], yaxis_title=words["accuracy"], height=PARETO_HEIGHT_PX,
                  xaxis={"range": x_range}, yaxis={"range": y_range, "tickformat": ".0%"})
