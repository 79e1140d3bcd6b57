"""A tab's input for a benchmark option, built from the option itself: its type, its default, the
values it takes and its label all come from the options dataclass (evalui.core.benchmark.option),
so the CLI's flags and the tabs' inputs cannot drift apart. A tab may override what the page
needs otherwise (a smaller default, choices read from the data, an element id its tests use)."""

from __future__ import annotations

import typing

import gradio as gr

from evalui.core.benchmark import Benchmark, base_type, option_default
from evalui.ui.i18n.strings import t


def option_input(spec: Benchmark, name: str, **overrides) -> gr.components.Component:
    field = {f.name: f for f in spec.option_fields()}[name]
    kind = base_type(typing.get_type_hints(spec.options).get(name))
    meta = field.metadata
    listed = typing.get_origin(kind) in (list, tuple) or kind in (list, tuple)
    value = overrides.pop("value", option_default(field))
    choices = overrides.pop("choices", meta.get("choices"))
    shown = {"label": t(meta["label"]) if meta.get("label") else name.replace("_", " "),
             "elem_id": f"{spec.name}-option-{name}", **overrides}
    if choices is not None:
        if listed:
            return gr.Dropdown(list(choices), value=value, multiselect=True, **shown)
        return gr.Radio(list(choices), value=value, **shown)
    if kind is bool:
        return gr.Checkbox(value=bool(value), **shown)
    if kind in (int, float):
        return gr.Number(value=value, precision=0 if kind is int else None, **shown)
    if isinstance(value, list):
        value = ",".join(map(str, value))
    return gr.Textbox(value="" if value is None else str(value), **shown)
