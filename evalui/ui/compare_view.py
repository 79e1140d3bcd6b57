"""The Runs tab's paired comparison of two runs: figures per group, and the flipped samples, each
of which opens in the sample inspector. The figures are `evalui compare`'s."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from evalui.engine.store import RunStore
from evalui.errors import InputError
from evalui.reports.comparison import CannotCompare, compare_runs, comparison_markdown, flip_choices
from evalui.ui import inspector
from evalui.ui.access import guarded, say
from evalui.ui.strings import t


@dataclass
class PairParts:
    a: gr.Dropdown
    b: gr.Dropdown
    compare: gr.Button
    figures: gr.Markdown
    flips: gr.Dropdown
    record: gr.JSON


def build(store: RunStore) -> PairParts:
    gr.Markdown(t("runs.pair_title"))
    with gr.Row():
        a = gr.Dropdown(choices=[], label=t("runs.pair_a"), elem_id="runs-pair-a", scale=3)
        b = gr.Dropdown(choices=[], label=t("runs.pair_b"), elem_id="runs-pair-b", scale=3)
        compare = gr.Button(t("runs.pair_compare"), elem_id="runs-pair-compare", scale=1)
    figures = gr.Markdown(elem_id="runs-pair-figures")
    flips = gr.Dropdown(choices=[], label=t("runs.pair_flips"), elem_id="runs-pair-flips")
    with gr.Accordion(t("runs.pair_json"), open=False):
        record = gr.JSON(elem_id="runs-pair-json")
    parts = PairParts(a, b, compare, figures, flips, record)

    @guarded(3, note=0)
    def compare_pair(a_id, b_id):
        if not a_id or not b_id:
            raise InputError(say("msg.need_run"))
        try:
            result = compare_runs(store, a_id, b_id)
        except CannotCompare as exc:
            raise InputError(str(exc)) from None
        return comparison_markdown(result), gr.update(choices=flip_choices(result), value=None), result

    compare.click(compare_pair, [a, b], [figures, flips, record], api_name="runs_compare_pair")
    return parts


def open_flips_in(store: RunStore, parts: PairParts, inspect: inspector.InspectorParts) -> None:
    """Choosing a flipped sample opens it, in run B, in the inspector."""
    def open_flip(choice):
        if not choice or "::" not in choice:
            return tuple(gr.skip() for _ in inspect.view())
        exp_id, sample_id = choice.split("::", 1)
        return inspector.show(store, exp_id, sample_id, open_panel=True)

    parts.flips.input(open_flip, [parts.flips], inspect.view(), api_visibility="private")
