"""The sample inspector: one component that every launcher tab and the Runs tab include.

It follows the tab's selected run (the launcher's "Stored runs" dropdown), refreshes when a run
ends, filters by verdict, group, error type and text, steps with Previous / Next (Alt+↓ / Alt+↑),
and shows one sample in full as inert HTML (evalui.runs.inspector_data escapes everything).
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from evalui.engine.store import RunStore
from evalui.runs import inspector_data as data
from evalui.ui.run_view import is_running
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

    def view(self) -> list:
        """The outputs ``show`` fills, in its order."""
        return [self.panel, self.run, self.verdict, self.group, self.error_type, self.search, self.sample,
                self.position, self.detail]


def _position(ids: list[str], sample_id: str | None) -> str:
    if not ids:
        return "0 / 0"
    return f"{ids.index(sample_id) + 1} / {len(ids)}" if sample_id in ids else f"– / {len(ids)}"


def _sample_html(store: RunStore, exp_id: str | None, sample_id: str | None) -> str:
    if not exp_id or not sample_id:
        return ""
    experiment = store.experiment(exp_id)
    found = [s for s in store.samples(exp_id) if s.sample_id == sample_id]
    if experiment is None or not found:
        return ""
    return data.detail_html(data.detail(experiment["benchmark"], found[0]), exp_id)


def show(store: RunStore, exp_id: str | None, sample_id: str | None = None, verdict: str = data.ALL,
         open_panel: bool | None = None) -> tuple:
    """Every output of the inspector for ``exp_id``, filters reset (except ``verdict``), showing
    ``sample_id`` or the first match."""
    rows = data.index(store.samples(exp_id)) if exp_id and store.experiment(exp_id) else []
    choices = data.filter_choices(rows)
    verdict = verdict if verdict in choices["verdict"] else data.ALL
    ids = data.filter_ids(rows, verdict=verdict)
    chosen = sample_id if sample_id in ids else (ids[0] if ids else None)
    panel = gr.Accordion(open=True) if open_panel else gr.skip()
    return (panel, exp_id, gr.update(choices=choices["verdict"], value=verdict),
            gr.update(choices=choices["group"], value=data.ALL),
            gr.update(choices=choices["error_type"], value=data.ALL), "",
            gr.update(choices=ids, value=chosen), _position(ids, chosen), _sample_html(store, exp_id, chosen))


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
            search = gr.Textbox(label=t("inspector.search"), elem_id=f"{prefix}-inspector-search")
        with gr.Row(equal_height=True):
            sample = gr.Dropdown([], label=t("inspector.sample"), elem_id=f"{prefix}-inspector-sample", scale=4)
            previous = gr.Button(t("inspector.previous"), elem_id=f"{prefix}-inspector-prev", scale=0)
            following = gr.Button(t("inspector.next"), elem_id=f"{prefix}-inspector-next", scale=0)
            position = gr.Markdown("0 / 0", elem_id=f"{prefix}-inspector-position")
        detail = gr.HTML("", elem_id=f"{prefix}-inspector-detail")
    parts = InspectorParts(panel, run, verdict, group, error_type, search, sample, previous, following, position, detail)
    filters = [run, verdict, group, error_type, search]

    def matching(exp_id, verdict_value, group_value, error_value, text):
        rows = data.index(store.samples(exp_id)) if exp_id and store.experiment(exp_id) else []
        return data.filter_ids(rows, verdict=verdict_value, group=group_value, error_type=error_value, text=text)

    def refilter(exp_id, *values):
        ids = matching(exp_id, *values)
        chosen = ids[0] if ids else None
        return gr.update(choices=ids, value=chosen), _position(ids, chosen), _sample_html(store, exp_id, chosen)

    def pick(exp_id, *values):
        *criteria, sample_id = values
        return _position(matching(exp_id, *criteria), sample_id), _sample_html(store, exp_id, sample_id)

    def step(offset):
        def move(exp_id, *values):
            *criteria, sample_id = values
            ids = matching(exp_id, *criteria)
            if not ids:
                return gr.skip(), "0 / 0", ""
            at = ids.index(sample_id) + offset if sample_id in ids else 0
            chosen = ids[max(0, min(at, len(ids) - 1))]
            return gr.update(value=chosen), _position(ids, chosen), _sample_html(store, exp_id, chosen)
        return move

    def follow_run(exp_id, shown):
        # A run that is going changes under the inspector: it loads once the run ends (``ends``).
        if is_running(exp_id) or (not exp_id and not shown):
            return tuple(gr.skip() for _ in parts.view())
        return show(store, exp_id)

    def refresh_after_run(exp_id):
        if not exp_id or is_running(exp_id):
            return tuple(gr.skip() for _ in parts.view())
        return show(store, exp_id)

    listed = [sample, position, detail]
    for control in (verdict, group, error_type):
        control.input(refilter, filters, listed, api_visibility="private")
    search.submit(refilter, filters, listed, api_visibility="private")
    sample.input(pick, [*filters, sample], [position, detail], api_visibility="private")
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
