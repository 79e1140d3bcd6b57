"""A tab's input for a benchmark option, built from the option itself: its type, its default, the
values it takes and its label all come from the options dataclass (evalui.core.benchmark.option),
so the CLI's flags and the tabs' inputs cannot drift apart. A tab may override what the page
needs otherwise (a smaller default, choices read from the data, an element id its tests use)."""

from __future__ import annotations

import typing
from collections.abc import Iterable, Sequence

import gradio as gr

from evalui.core.benchmark import Benchmark, base_type, option_default
from evalui.ui.i18n.strings import t

# (label key of the UI catalog, the group's value, the values it stands for)
ChoiceGroup = tuple[str, str, Sequence[str]]
# Chosen values take a few lines at most, then scroll: the page rule is the launcher's (LAUNCHER_CSS).
COMPACT_CHOICES = "evalui-compact-choices"


def option_input(spec: Benchmark, name: str, groups: Iterable[ChoiceGroup] | None = None,
                 **overrides) -> gr.components.Component:
    """The option's input; for a list option, ``groups`` makes it a grouped_choices_input."""
    field = {f.name: f for f in spec.option_fields()}[name]
    kind = base_type(typing.get_type_hints(spec.options).get(name))
    meta = field.metadata
    listed = typing.get_origin(kind) in (list, tuple) or kind in (list, tuple)
    value = overrides.pop("value", option_default(field))
    choices = overrides.pop("choices", meta.get("choices"))
    shown = {"label": t(meta["label"]) if meta.get("label") else name.replace("_", " "),
             "elem_id": f"{spec.name}-option-{name}", **overrides}
    if groups is not None and listed:
        return grouped_choices_input(groups, choices or (), value=value, **shown)
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


def grouped_choices_input(groups: Iterable[ChoiceGroup], choices: Iterable[str], **kwargs) -> gr.Dropdown:
    """A compact multiselect whose first choices each stand for a group of the others (a benchmark's
    "every multi-turn category", say), then the single values. The handlers get the single values,
    groups expanded; a value set back on it shows whole groups as their one choice again."""
    groups = list(groups)
    members: dict[str, Sequence[str]] = {value: tuple(group) for _, value, group in groups}
    singles = list(dict.fromkeys([*(m for group in members.values() for m in group), *choices]))
    listed = [(t(label), value) for label, value, _ in groups] + [(c, c) for c in singles if c not in members]
    kwargs["elem_classes"] = [*(kwargs.get("elem_classes") or []), COMPACT_CHOICES]
    value = kwargs.pop("value", None)
    box = gr.Dropdown(listed, value=None if value is None else collapse_groups(value, members), multiselect=True,
                      **kwargs)
    # On this one input, not a Dropdown subclass: Gradio writes a .pyi stub beside the module of every
    # component class it meets.
    read, show = box.preprocess, box.postprocess

    def expanded(payload):
        chosen = read(payload)
        return None if chosen is None else expand_groups(typing.cast(Iterable[str], chosen), members)

    def collapsed(value):
        return show(None if value is None else typing.cast(typing.Any, collapse_groups(value, members)))

    # setattr: a method replaced on one instance, which the type checker would refuse as written.
    setattr(box, "preprocess", expanded)  # noqa: B010
    setattr(box, "postprocess", collapsed)  # noqa: B010
    return box


def expand_groups(chosen: Iterable[str], groups: dict[str, Sequence[str]]) -> list[str]:
    """The single values ``chosen`` stands for, in order, each once."""
    return list(dict.fromkeys(m for value in chosen for m in groups.get(value, (value,))))


def collapse_groups(chosen, groups: dict[str, Sequence[str]]) -> list[str]:
    """``chosen`` with every whole group (the largest first) as its one value, ahead of the singles left."""
    left = list(dict.fromkeys(expand_groups([chosen] if isinstance(chosen, str) else chosen, groups)))
    whole = []
    for value, members in sorted(groups.items(), key=lambda g: -len(g[1])):
        if members and set(members) <= set(left):
            whole.append(value)
            left = [c for c in left if c not in members]
    return whole + left
