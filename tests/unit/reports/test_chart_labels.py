"""Chart labels that fit: an accuracy bar's share sits inside the bar from its base and its sample
count under the group's name, so neither meets the error bar; titles and tick labels get the room
they need (automargin) instead of being clipped."""

from __future__ import annotations

import re

import pytest

from evalui.reports import charts

GROUPS = {"simple_python": {"rate": 1.0, "low": 0.34, "high": 1.0, "total": 2},
          "a_very_long_category_name_that_would_be_clipped": {"rate": 0.25, "low": 0.05, "high": 0.7, "total": 4}}


def test_the_share_is_inside_the_bar_and_the_count_under_the_name():
    bar = charts.accuracy_bars(GROUPS, "Accuracy per category (95% CI)").data[0]
    assert list(bar.text) == ["100.0%", "25.0%"]
    assert bar.textposition == "inside" and bar.insidetextanchor == "start"
    assert list(bar.x) == ["simple_python<br>n=2", "a_very_long_category_name_that_would_be_clipped<br>n=4"]
    assert list(bar.error_y.array) == pytest.approx([0.0, 0.45]) and list(bar.error_y.arrayminus) == pytest.approx([0.66, 0.2])


def test_every_chart_lets_its_labels_take_the_room_they_need():
    figures = [charts.accuracy_bars(GROUPS), charts.count_bars({"wrong_value": 3}, "Error types"),
               charts.histogram([1.0, 2.0], "Latency", "seconds"),
               charts.judge_dimension_bars({"correctness": 4.2}), charts.score_distribution({4.0: 2}),
               charts.win_loss_tie({f"{k}_rate": {"successes": 1} for k in ("win", "loss", "tie")}),
               charts.cost_pareto([{"exp_id": "a", "model": "m", "cost": 0.1, "accuracy": 0.5, "low": 0.4,
                                    "high": 0.6}])]
    for figure in figures:
        layout = figure.layout
        assert layout.title.xanchor == "left" and layout.title.font.size == 14, layout.title.text
        assert layout.xaxis.automargin and layout.yaxis.automargin, layout.title.text


def drawn_words(figure) -> set[str]:
    """Every word a figure draws that is not data: its title, axis names, trace names, slice labels
    and the fixed part of its hover texts."""
    layout = figure.layout
    texts = {layout.title.text, layout.xaxis.title.text, layout.yaxis.title.text}
    for trace in figure.data:
        texts.add(getattr(trace, "name", None))
        texts |= set(getattr(trace, "labels", None) or ())
        hover = getattr(trace, "hovertemplate", None) or ""
        texts |= set(re.sub(r"%\{[^}]*\}|<[^>]*>|\$|\(|\)", " ", hover).split())
    return {t for t in texts if t}


def test_every_word_a_chart_draws_comes_from_the_words_it_is_given():
    """The dashboard gives the charts its visitor's language (evalui.ui.i18n.charts): a chart that
    drew a fixed English word would show it on a Chinese page."""
    marked = {key: f"«{key}»" for key in charts.CHART_WORDS}
    figures = [charts.histogram([1.0, 2.0], "«title»", "«x»", marked),
               charts.judge_dimension_bars({"correctness": 4.2}, marked),
               charts.score_distribution({4.0: 2}, marked),
               charts.win_loss_tie({f"{k}_rate": {"successes": 1} for k in ("win", "loss", "tie")}, "«title»", marked),
               charts.cost_pareto([{"exp_id": "a", "model": "m", "cost": 0.1, "accuracy": 0.5, "low": 0.4,
                                    "high": 0.6}], "«title»", marked)]
    used = set()
    for figure in figures:
        words = drawn_words(figure)
        assert all(w.startswith("«") and w.endswith("»") for w in words), words
        used |= words
    # Every word of the set is drawn by some chart (the comparison charts draw the remaining four).
    compared = {"groups_compared", "headline_by_tokens", "tokens", "accuracy_or_rate"}
    assert {marked[k] for k in charts.CHART_WORDS if k not in compared} <= used


def test_the_dimension_names_are_the_pages_when_given():
    figure = charts.judge_dimension_bars({"correctness": 4.2, "clarity": 3.0}, names={"correctness": "正确性"})
    assert list(figure.data[0].x) == ["正确性", "clarity"]
