"""Chart labels that fit: an accuracy bar's share sits inside the bar from its base and its sample
count under the group's name, so neither meets the error bar; titles and tick labels get the room
they need (automargin) instead of being clipped."""

from __future__ import annotations

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
