"""Plotly figures used by the dashboard and written next to reports."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go


def accuracy_bars(per_group: Mapping[str, Mapping], title: str = "Accuracy") -> go.Figure:
    """Bars of accuracy per group with 95 % Wilson intervals; values are dicts with rate/low/high."""
    names = list(per_group)
    rates = [per_group[n]["rate"] for n in names]
    figure = go.Figure(
        go.Bar(
            x=names,
            y=rates,
            text=[f"{r * 100:.1f}% (n={per_group[n]['total']})" for n, r in zip(names, rates)],
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [per_group[n]["high"] - per_group[n]["rate"] for n in names],
                "arrayminus": [per_group[n]["rate"] - per_group[n]["low"] for n in names],
            },
        )
    )
    figure.update_layout(title=title, yaxis={"range": [0, 1.05], "tickformat": ".0%"}, margin={"t": 50, "b": 40})
    return figure


def count_bars(counts: Mapping[str, int], title: str) -> go.Figure:
    names = list(counts)
    figure = go.Figure(go.Bar(x=names, y=[counts[n] for n in names]))
    figure.update_layout(title=title, margin={"t": 50, "b": 40})
    return figure


def histogram(values: list[float], title: str, x_title: str) -> go.Figure:
    figure = go.Figure(go.Histogram(x=values, nbinsx=30))
    figure.update_layout(title=title, xaxis_title=x_title, yaxis_title="count", margin={"t": 50, "b": 40})
    return figure


def write_html(figure: go.Figure, path) -> None:
    # Charts must open offline, so plotly.js is not fetched from a CDN; one copy per run folder
    # (plotly.min.js beside the charts) is shared by all its charts.
    figure.write_html(str(path), include_plotlyjs="directory", full_html=True)


def judge_dimension_bars(dimensions: Mapping[str, float]) -> go.Figure:
    names = list(dimensions)
    figure = go.Figure(go.Bar(x=names, y=[dimensions[n] for n in names], text=[f"{dimensions[n]:.2f}" for n in names]))
    figure.update_layout(title="LLM judge: average score per dimension", yaxis={"range": [0, 5.2]}, margin={"t": 50, "b": 40})
    return figure


def score_distribution(distribution: Mapping[float, int]) -> go.Figure:
    keys = sorted(float(k) for k in distribution)
    values = [distribution.get(k, distribution.get(str(k), 0)) for k in keys]
    figure = go.Figure(go.Bar(x=[f"{k:.1f}" for k in keys], y=values))
    figure.update_layout(title="Distribution of average judge scores", xaxis_title="average score",
                         yaxis_title="problems", margin={"t": 50, "b": 40})
    return figure


def win_loss_tie(rates: Mapping[str, Mapping]) -> go.Figure:
    labels = ["win", "loss", "tie"]
    values = [rates[f"{label}_rate"]["successes"] for label in labels]
    figure = go.Figure(go.Pie(labels=["generated better", "real better", "tie"], values=values, hole=0.4, sort=False))
    figure.update_layout(title="Win rate against real AIME problems (both orders agree)", margin={"t": 50, "b": 20})
    return figure
