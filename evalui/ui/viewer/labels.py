"""The viewer's labelling of the validity scanners' findings: a named reviewer marks one of the shown
sample's findings "confirmed" or "false alarm" (evalui.viewer.findings); each scanner's precision
from those labels is shown under it."""

from __future__ import annotations

import html
from dataclasses import dataclass

import gradio as gr

from evalui.errors import InputError
from evalui.scanners.labels import CONFIRMED, FALSE_ALARM
from evalui.ui.i18n.strings import t
from evalui.ui.web.access import require_access, say
from evalui.viewer import data
from evalui.viewer import findings as labelling
from evalui.viewer.texts import word_or_key


@dataclass
class LabelParts:
    labelled: gr.Dropdown
    reviewer: gr.Textbox
    confirm: gr.Button
    false_alarm: gr.Button
    precision: gr.Markdown


def precision_line(store, exp_id: str | None) -> str:
    try:
        figures = labelling.precision(store, exp_id) if exp_id else {}
    except InputError as exc:
        return html.escape(str(exc))
    return say("inspector.precision", figures=labelling.precision_text(figures)) if figures \
        else say("inspector.precision_none")


def build(prefix: str) -> LabelParts:
    with gr.Row(equal_height=True):
        labelled = gr.Dropdown([], label=t("inspector.label_finding"), elem_id=f"{prefix}-inspector-labelled", scale=3)
        reviewer = gr.Textbox(label=t("inspector.reviewer"), max_length=100, elem_id=f"{prefix}-inspector-reviewer",
                              scale=2)
        confirm = gr.Button(t("inspector.confirmed"), elem_id=f"{prefix}-inspector-confirmed", scale=0)
        false_alarm = gr.Button(t("inspector.false_alarm"), elem_id=f"{prefix}-inspector-false-alarm", scale=0)
    precision = gr.Markdown("", elem_id=f"{prefix}-inspector-precision")
    return LabelParts(labelled, reviewer, confirm, false_alarm, precision)


def wire(store, parts: LabelParts, view: gr.State, detail: gr.HTML, pane=None) -> None:
    """``pane(exp_id, sample_id)``: the sample's pane as the viewer shows it after a label (data.pane's by default)."""
    shown = pane or (lambda exp_id, sample_id: data.pane(store, exp_id, sample_id, say)[0])

    def label_with(label):
        def save(state, number, name):
            require_access("label findings")  # reading a run is not enough to write beside it
            exp_id, sample_id = (state or {}).get("run"), (state or {}).get("selected")
            if not exp_id or not sample_id or not number:
                gr.Warning(say("inspector.need_finding"))
                return gr.skip(), gr.skip()
            try:
                entry = labelling.label_finding(store, exp_id, sample_id, int(number), label, name)
            except InputError as exc:  # no name, a reserved one, an unreadable labels file, a finding gone
                gr.Warning(html.escape(str(exc)))
                return gr.skip(), gr.skip()
            gr.Info(html.escape(say("inspector.labelled", number=number, sample=sample_id,
                                    label=word_or_key(say, "viewer.label", label), reviewer=entry["reviewer"])))
            return shown(exp_id, sample_id), precision_line(store, exp_id)
        return save

    for button, label in ((parts.confirm, CONFIRMED), (parts.false_alarm, FALSE_ALARM)):
        button.click(label_with(label), [view, parts.labelled, parts.reviewer], [detail, parts.precision],
                     api_visibility="private")
