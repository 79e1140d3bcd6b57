"""The run page's summary header: the run's figures (headline with its interval, validity, cost,
repeats), its charts and any other summary card, in one row of small cards above the viewer.

Everything here is read from the run's summary, never from its samples: the viewer below pages
its own rows, so opening a run stays fast however many samples it has. A chart with no data is not
drawn at all (an empty plot frame took a card's room and said nothing)."""

from __future__ import annotations

from contextlib import contextmanager

import gradio as gr

from evalui.core import registry
from evalui.core.benchmark import accuracy_headline
from evalui.ui.i18n.strings import STRINGS
from evalui.ui.run_view import cost_note, epochs_note, percent, run_state
from evalui.ui.web.access import say

CARD_HEIGHT_PX = 220  # a chart card's height: the header stays one short row above the viewer
CARD_MIN_WIDTH_PX = 220  # five cards fit the row of a 1440 px window


@contextmanager
def cards(prefix: str):
    """The header's row; each card in it is a ``card()`` column or a ``plot()``."""
    with gr.Row(equal_height=False, elem_id=f"{prefix}-summary", elem_classes=["evalui-run-header"]) as row:
        yield row


def menus(prefix: str):
    """The last card, for what opens on demand (the download menu, a long table): one closed line
    each until opened, so the row stays as short as its charts."""
    return gr.Column(scale=1, min_width=CARD_MIN_WIDTH_PX, elem_id=f"{prefix}-summary-menus")


def card(scale: int = 1):
    return gr.Column(scale=scale, min_width=CARD_MIN_WIDTH_PX, variant="panel")


def plot(label, elem_id: str, scale: int = 1) -> gr.Plot:
    """A chart card, hidden until ``chart`` gives it a figure."""
    return gr.Plot(label=label, elem_id=elem_id, visible=False, scale=scale, min_width=CARD_MIN_WIDTH_PX)


def chart(figure, height: int | None = CARD_HEIGHT_PX):
    """A chart's update: the figure (made ``height`` tall to fit the row of cards; None keeps its
    own height), or the chart hidden when there is none."""
    if figure is None:
        return gr.update(value=None, visible=False)
    if height is not None:
        figure.update_layout(height=height)
    return gr.update(value=figure, visible=True)


def _interval(low, high) -> str:
    # An undefined bound says nothing: no "[–––]".
    return "" if low is None or high is None else f" [{percent(low)}–{percent(high)}]"


def headline_name(label: str) -> str:
    """A headline's name (accuracy, pass rate…) in the visitor's language; a benchmark's catalog
    names its own, and a name no catalog gives stays as the benchmark says it."""
    key = f"run_page.headline.{label}"
    return say(key) if key in STRINGS else label


def figures_markdown(store, exp_id: str, summary: dict | None) -> str:
    """The run's figures as a card's Markdown: the headline (its 95 % interval when it is the
    accuracy), how many samples were judged, then validity, cost and repeats when the summary has them."""
    experiment = store.experiment(exp_id) if exp_id else None
    if experiment is None or not summary:
        return ""
    spec = registry.find(experiment["benchmark"])
    label, value = (spec.headline if spec is not None else accuracy_headline)(summary)
    shown = "–" if value is None else f"{value:.1%}"
    interval = _interval(*(list(summary.get("ci95") or []) + [None, None])[:2]) if label == "accuracy" else ""
    lines = [f"**{headline_name(label)}: {shown}**{interval}",
             say("run_page.judged", judged=summary.get("judged", 0), total=summary.get("total", 0))]
    validity = summary.get("validity") or {}
    if validity.get("valid_accuracy") is not None:
        lines.append(say("run_page.valid", valid=percent(validity["valid_accuracy"]),
                         interval=_interval(*(list(validity.get("valid_ci95") or []) + [None, None])[:2]),
                         invalid=validity.get("invalid", 0)))
    state = run_state(store, exp_id, experiment)
    for note in (cost_note(experiment, state), epochs_note(experiment, state)):
        if note:
            lines.append(note.removeprefix(" · "))
    return " · ".join(lines)  # one paragraph: the card stays as short as the charts beside it
