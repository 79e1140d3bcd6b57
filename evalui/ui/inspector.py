"""The sample inspector: one component that every launcher tab and the Runs tab include.

It follows the tab's selected run (the launcher's "Stored runs" dropdown), refreshes when a run
ends, filters by verdict, group, error type, validity finding and text, steps with Previous / Next (Alt+↓ / Alt+↑),
and shows one sample in full as inert HTML (evalui.runs.inspector_data escapes everything), with the
validity scanners' findings, which a named reviewer labels "confirmed" or "false alarm"
(evalui.runs.finding_labels); each scanner's precision from those labels is shown under it.
"""

from __future__ import annotations

from dataclasses import dataclass

import html

import gradio as gr

from evalui.engine.finding_labels import CONFIRMED, FALSE_ALARM, read_labels
from evalui.engine.store import RunStore
from evalui.errors import InputError
from evalui.runs import finding_labels as labelling
from evalui.runs import inspector_data as data
from evalui.ui.run_view import is_running
from evalui.ui.access import require_access, say
from evalui.ui.strings import t

# Alt+↓ / Alt+↑ press Next / Previous of the inspector on screen (only one tab is visible at a time).
KEYBOARD_JS = """() => {
  if (window.evaluiInspectorKeys) return;
  window.evaluiInspectorKeys = true;
  document.addEventListener("keydown", (event) => {
    if (!event.altKey || (event.key !== "ArrowDown" && event.key !== "ArrowUp")) return;
    const suffix = event.key === "ArrowDown" ? "-inspector-next" : "-inspector-prev";
    const button = [...document.querySelectorAll(`[id$="${suffix}"]`)].find((b) => b.offsetParent !== null);
    if (button) { event.preventDefault(); button.click(); }
  });
}"""


@dataclass
class InspectorParts:
    panel: gr.Accordion
    run: gr.State
    verdict: gr.Dropdown
    group: gr.Dropdown
    error_type: gr.Dropdown
    search: gr.Textbox
    sample: gr.Dropdown
    previous: gr.Button
    next: gr.Button
    position: gr.Markdown
    detail: gr.HTML
    finding: gr.Dropdown
    labelled: gr.Dropdown
    reviewer: gr.Textbox
    confirm: gr.Button
    false_alarm: gr.Button
    precision: gr.Markdown

    def view(self) -> list:
        """The outputs ``show`` fills, in its order."""
        return [self.panel, self.run, self.verdict, self.group, self.error_type, self.search, self.sample,
                self.position, self.detail, self.finding, self.labelled, self.precision]


def _position(ids: list[str], sample_id: str | None) -> str:
    if not ids:
        return "0 / 0"
    return f"{ids.index(sample_id) + 1} / {len(ids)}" if sample_id in ids else f"– / {len(ids)}"


def _rows(store: RunStore, exp_id: str | None) -> list[dict]:
    experiment = store.experiment(exp_id) if exp_id else None
    if experiment is None:
        return []
    samples = store.samples(exp_id)
    return data.index(samples, labelling.run_findings(store, experiment, samples))


def _sample_view(store: RunStore, exp_id: str | None, sample_id: str | None) -> tuple:
    """The sample's HTML and the labelling control's choices (its findings)."""
    experiment = store.experiment(exp_id) if exp_id and sample_id else None
    found = [s for s in store.samples(exp_id) if s.sample_id == sample_id] if experiment else []
    if not found:
        return "", gr.update(choices=[], value=None)
    mine = labelling.run_findings(store, experiment, found)[sample_id]
    try:
        labels = read_labels(labelling.folder_of(experiment))
    except InputError as exc:
        gr.Warning(html.escape(str(exc)))
        labels = {}
    record = data.detail(experiment["benchmark"], found[0], mine, labels)
    choices = data.finding_choices(mine)
    return data.detail_html(record, exp_id), gr.update(choices=choices, value=choices[0][1] if choices else None)


def precision_line(store: RunStore, exp_id: str | None) -> str:
    try:
        figures = labelling.precision(store, exp_id) if exp_id else {}
    except InputError as exc:
        return html.escape(str(exc))
    return say("inspector.precision", figures=labelling.precision_text(figures)) if figures \
        else say("inspector.precision_none")


def show(store: RunStore, exp_id: str | None, sample_id: str | None = None, verdict: str = data.ALL,
         open_panel: bool | None = None) -> tuple:
    """Every output of the inspector for ``exp_id``, filters reset (except ``verdict``), showing
    ``sample_id`` or the first match."""
    rows = _rows(store, exp_id)
    choices = data.filter_choices(rows)
    verdict = verdict if verdict in choices["verdict"] else data.ALL
    ids = data.filter_ids(rows, verdict=verdict)
    chosen = sample_id if sample_id in ids else (ids[0] if ids else None)
    panel = gr.Accordion(open=True) if open_panel else gr.skip()
    shown, labelled = _sample_view(store, exp_id, chosen)
    return (panel, exp_id, gr.update(choices=choices["verdict"], value=verdict),
            gr.update(choices=choices["group"], value=data.ALL),
            gr.update(choices=choices["error_type"], value=data.ALL), "",
            gr.update(choices=ids, value=chosen), _position(ids, chosen), shown,
            gr.update(choices=choices["finding"], value=data.ALL), labelled, precision_line(store, exp_id))


def build(demo, store: RunStore, follow: gr.Dropdown | None = None, ends: gr.components.Component | None = None, *,
          prefix: str) -> InspectorParts:
    """The inspector, following ``follow`` (the tab's run dropdown) and refreshing when ``ends``
    (the launcher's progress bar) changes while no run goes."""
    with gr.Accordion(t("inspector.title"), open=False, elem_id=f"{prefix}-inspector") as panel:
        run = gr.State(None)
        with gr.Row():
            verdict = gr.Dropdown([data.ALL], value=data.ALL, label=t("inspector.verdict"),
                                  elem_id=f"{prefix}-inspector-verdict")
            group = gr.Dropdown([data.ALL], value=data.ALL, label=t("inspector.group"), elem_id=f"{prefix}-inspector-group")
            error_type = gr.Dropdown([data.ALL], value=data.ALL, label=t("inspector.error_type"),
                                     elem_id=f"{prefix}-inspector-error-type")
            finding = gr.Dropdown([data.ALL], value=data.ALL, label=t("inspector.finding"),
                                  elem_id=f"{prefix}-inspector-finding")
            search = gr.Textbox(label=t("inspector.search"), elem_id=f"{prefix}-inspector-search")
        with gr.Row(equal_height=True):
            sample = gr.Dropdown([], label=t("inspector.sample"), elem_id=f"{prefix}-inspector-sample", scale=4)
            previous = gr.Button(t("inspector.previous"), elem_id=f"{prefix}-inspector-prev", scale=0)
            following = gr.Button(t("inspector.next"), elem_id=f"{prefix}-inspector-next", scale=0)
            position = gr.Markdown("0 / 0", elem_id=f"{prefix}-inspector-position")
        detail = gr.HTML("", elem_id=f"{prefix}-inspector-detail")
        with gr.Row(equal_height=True):
            labelled = gr.Dropdown([], label=t("inspector.label_finding"), elem_id=f"{prefix}-inspector-labelled",
                                   scale=3)
            reviewer = gr.Textbox(label=t("inspector.reviewer"), max_length=100, elem_id=f"{prefix}-inspector-reviewer",
                                  scale=2)
            confirm = gr.Button(t("inspector.confirmed"), elem_id=f"{prefix}-inspector-confirmed", scale=0)
            false_alarm = gr.Button(t("inspector.false_alarm"), elem_id=f"{prefix}-inspector-false-alarm", scale=0)
        precision = gr.Markdown("", elem_id=f"{prefix}-inspector-precision")
    parts = InspectorParts(panel, run, verdict, group, error_type, search, sample, previous, following, position, detail,
                           finding, labelled, reviewer, confirm, false_alarm, precision)
    filters = [run, verdict, group, error_type, search, finding]

    def matching(exp_id, verdict_value, group_value, error_value, text, finding_value):
        return data.filter_ids(_rows(store, exp_id), verdict=verdict_value, group=group_value, error_type=error_value,
                               text=text, finding=finding_value)

    def refilter(exp_id, *values):
        ids = matching(exp_id, *values)
        chosen = ids[0] if ids else None
        return gr.update(choices=ids, value=chosen), _position(ids, chosen), *_sample_view(store, exp_id, chosen)

    def pick(exp_id, *values):
        *criteria, sample_id = values
        return _position(matching(exp_id, *criteria), sample_id), *_sample_view(store, exp_id, sample_id)

    def step(offset):
        def move(exp_id, *values):
            *criteria, sample_id = values
            ids = matching(exp_id, *criteria)
            if not ids:
                return gr.skip(), "0 / 0", "", gr.update(choices=[], value=None)
            at = ids.index(sample_id) + offset if sample_id in ids else 0
            chosen = ids[max(0, min(at, len(ids) - 1))]
            return gr.update(value=chosen), _position(ids, chosen), *_sample_view(store, exp_id, chosen)
        return move

    def label_with(label):
        def save(exp_id, sample_id, number, name):
            require_access("label findings")  # reading a run is not enough to write beside it
            if not exp_id or not sample_id or not number:
                gr.Warning(say("inspector.need_finding"))
                return gr.skip(), gr.skip()
            try:
                entry = labelling.label_finding(store, exp_id, sample_id, int(number), label, name)
            except InputError as exc:  # no name, a reserved one, an unreadable labels file, a finding gone
                gr.Warning(html.escape(str(exc)))
                return gr.skip(), gr.skip()
            gr.Info(html.escape(say("inspector.labelled", number=number, sample=sample_id,
                                    label=label.replace("_", " "), reviewer=entry["reviewer"])))
            return _sample_view(store, exp_id, sample_id)[0], precision_line(store, exp_id)
        return save

    def follow_run(exp_id, shown):
        # A run that is going changes under the inspector: it loads once the run ends (``ends``).
        if is_running(exp_id) or (not exp_id and not shown):
            return tuple(gr.skip() for _ in parts.view())
        return show(store, exp_id)

    def refresh_after_run(exp_id):
        if not exp_id or is_running(exp_id):
            return tuple(gr.skip() for _ in parts.view())
        return show(store, exp_id)

    listed = [sample, position, detail, labelled]
    for control in (verdict, group, error_type, finding):
        control.input(refilter, filters, listed, api_visibility="private")
    search.submit(refilter, filters, listed, api_visibility="private")
    sample.input(pick, [*filters, sample], [position, detail, labelled], api_visibility="private")
    for button, label in ((confirm, CONFIRMED), (false_alarm, FALSE_ALARM)):
        button.click(label_with(label), [run, sample, labelled, reviewer], [detail, precision], api_visibility="private")
    previous.click(step(-1), [*filters, sample], listed, api_visibility="private", show_progress="hidden")
    following.click(step(1), [*filters, sample], listed, api_visibility="private", show_progress="hidden")
    if follow is not None:
        follow.change(follow_run, [follow, run], parts.view(), api_visibility="private")
        if ends is not None:
            ends.change(refresh_after_run, [follow], parts.view(), api_visibility="private", show_progress="hidden")
    demo.load(None, None, None, js=KEYBOARD_JS, api_visibility="private")
    return parts


def include(demo, store: RunStore, launcher_parts) -> InspectorParts:
    """The one line a launcher tab adds: an inspector that follows the tab's runs."""
    prefix = launcher_parts.start.elem_id.removesuffix("-start")
    return build(demo, store, launcher_parts.runs, launcher_parts.progress, prefix=prefix)
