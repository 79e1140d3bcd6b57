"""The accuracy-against-cost chart: unpriced runs are counted, never drawn; only the Pareto frontier
carries text labels (numbers, the runs' names on hover), and those labels never meet, even when
frontier runs crowd together or coincide."""

from __future__ import annotations

import itertools

import pytest

from evalui.reports import charts

pytestmark = pytest.mark.unit

OLD_ZERO_PRICE = {"input_per_m": 0.0, "output_per_m": 0.0, "priced_by": "run", "source": "prices given with the run"}


def experiment(exp_id: str, accuracy: float, usd: float | None, price: dict | None = None, status="finished") -> dict:
    cost = {"usd": usd, "per_sample_usd": None, "per_correct_usd": None,
            "priced_by": (price or {}).get("priced_by")} | ({"price": price} if price else {})
    return {"exp_id": exp_id, "model": f"model-{exp_id}", "status": status,
            "summary": {"accuracy": accuracy, "ci95": [max(accuracy - 0.1, 0), min(accuracy + 0.1, 1)], "cost": cost}}


def point(exp_id: str, cost: float, accuracy: float) -> dict:
    return {"exp_id": exp_id, "model": f"model-{exp_id}", "cost": cost, "accuracy": accuracy, "low": accuracy,
            "high": accuracy}


def test_unpriced_runs_are_counted_and_left_off():
    table = {"input_per_m": 0.15, "output_per_m": 0.6, "priced_by": "table"}
    points, unpriced = charts.priced_runs([
        experiment("priced", 0.5, 0.02, table),
        experiment("unpriced", 0.9, None),
        experiment("old-zero", 0.7, 0.0, OLD_ZERO_PRICE),  # stored before 0 meant "no price"
        experiment("cancelled", 0.9, 0.01, table, status="cancelled"),
    ])
    assert [p["exp_id"] for p in points] == ["priced"] and unpriced == 2
    figure = charts.cost_pareto(points)
    drawn = {i for trace in figure.data for i in trace.customdata}
    assert drawn == {"priced"}


def test_only_frontier_points_carry_text_labels_and_every_run_has_hover():
    points = [point("cheap", 0.1, 0.5), point("strong", 1.0, 0.9), point("waste", 2.0, 0.5), point("mid", 0.5, 0.4)]
    runs, frontier = charts.cost_pareto(points).data
    assert runs.name == "runs" and "text" not in runs.mode and runs.text is None
    assert list(runs.customdata) == ["cheap", "strong", "waste", "mid"]
    assert "%{customdata}" in runs.hovertemplate and list(runs.hovertext) == [f"model-{p['exp_id']}" for p in points]
    assert frontier.name == "Pareto frontier" and "text" in frontier.mode
    assert list(frontier.customdata) == ["cheap", "strong"]  # cheapest first, the dominated runs are not on it
    assert list(frontier.text) == ["1", "2"]


def label_boxes(figure) -> list[tuple[str, float, float, float]]:
    """(text, left, bottom, right) in pixels of each frontier label at the chart's smallest plot area: a
    label is centred over its point, a digit or dash about 7 px wide in plotly's 12 px font."""
    frontier = figure.data[1]
    (x0, x1), (y0, y1) = figure.layout.xaxis.range, figure.layout.yaxis.range
    width, height = charts.PLOT_AREA_PX
    boxes = []
    for x, y, text in zip(frontier.x, frontier.y, frontier.text):
        if text:
            centre, bottom = (x - x0) / (x1 - x0) * width, (y - y0) / (y1 - y0) * height
            boxes.append((text, centre - 3.5 * len(text), bottom, centre + 3.5 * len(text)))
    return boxes


def overlapping(boxes) -> list[tuple[str, str]]:
    line = 14  # a 12 px font's line
    return [(a[0], b[0]) for a, b in itertools.combinations(boxes, 2)
            if a[1] < b[3] and b[1] < a[3] and abs(a[2] - b[2]) < line]


@pytest.mark.parametrize("points", [
    # a crowded frontier: 30 runs a hair apart in cost and accuracy
    [point(f"r{i}", 0.01 + 0.0001 * i, 0.3 + 0.02 * i) for i in range(30)],
    [point(f"r{i}", 0.01 * i, 0.5 + 0.001 * i) for i in range(30)],
    # the blob of issue 36: many runs at the same cost and accuracy, all of them on the frontier
    [point(f"same-{i}", 0.0, 0.5) for i in range(8)] + [point("dear", 3.0, 0.9)],
    # far apart: every run keeps its own label
    [point("a", 0.1, 0.1), point("b", 1.0, 0.5), point("c", 2.0, 0.9)],
])
def test_frontier_labels_never_overlap_and_name_every_frontier_run(points):
    figure = charts.cost_pareto(points)
    boxes = label_boxes(figure)
    assert boxes and not overlapping(boxes)
    # Every frontier run is numbered by exactly one label ("4" or "2–5"), in order.
    numbers = []
    for text, *_ in boxes:
        first, _, last = text.partition("–")
        numbers.extend(range(int(first), int(last or first) + 1))
    assert numbers == list(range(1, len(figure.data[1].x) + 1))


def test_far_apart_frontier_runs_keep_one_label_each():
    figure = charts.cost_pareto([point("a", 0.1, 0.1), point("b", 1.0, 0.5), point("c", 2.0, 0.9)])
    assert list(figure.data[1].text) == ["1", "2", "3"]
