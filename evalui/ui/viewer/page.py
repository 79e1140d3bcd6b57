"""The sample viewer: one component that every benchmark tab and the Runs tab include. A paged,
sortable list of the run's samples (coloured verdicts) beside the transcript pane of the chosen one,
with filters (verdict, group, error type, scanner finding), a full-text search served by the store,
keyboard navigation (j / k, or Alt+↓ / Alt+↑ anywhere), and the labelling of scanners' findings
(evalui.ui.viewer.labels). The data functions are in evalui.viewer: here is only the wiring.
"""

from __future__ import annotations

import functools
import html
from dataclasses import dataclass

import gradio as gr

from evalui.errors import InputError
from evalui.store import search as store_search
from evalui.ui.i18n.strings import say, t
from evalui.ui.run_view import is_running
from evalui.ui.viewer import filter_choices
from evalui.ui.viewer import labels as viewer_labels
from evalui.viewer import data, rows, transcript
from evalui.viewer.style import LIST_CSS, TRANSCRIPT_CSS

# Clicks on the list's rows, headers and pager become events with what was clicked; j / k and the
# arrows (Alt+↓ / Alt+↑ even while typing) press Next / Previous of the viewer on screen. After each
# render the list hides the columns its chooser turned off (kept in localStorage), scrolls its
# selected row into view (the page too for a deep link: data-reveal) and sizes its pane: the table at
# its natural width when the row allows, never narrower than the table's narrowest (no sideways
# scroll), or the width the handle was dragged to.
LIST_JS = """
element.addEventListener('click', (event) => {
  const row = event.target.closest('tr[data-id]');
  if (row) { trigger('click', {action: 'open', sample: row.dataset.id}); return; }
  const head = event.target.closest('th[data-sort]');
  if (head) { trigger('click', {action: 'sort', column: head.dataset.sort}); return; }
  const pager = event.target.closest('button[data-page]');
  if (pager && !pager.disabled) trigger('click', {action: 'page', page: Number(pager.dataset.page)});
});
const HIDDEN = 'evalui.viewer.hidden-columns', WIDTH = 'evalui.viewer.list-width';
const stored = (key, empty) => { try { return JSON.parse(localStorage.getItem(key)) ?? empty; } catch (e) { return empty; } };
const columns = () => {
  const off = stored(HIDDEN, []);
  element.querySelectorAll('[data-col]').forEach((cell) => { cell.hidden = off.includes(cell.dataset.col); });
  element.querySelectorAll('input[data-column]').forEach((box) => { box.checked = !off.includes(box.dataset.column); });
};
const pane = () => element.closest('.evalui-viewer-list-pane');
const fit = () => {
  const column = pane(), table = element.querySelector('.evalui-list table'), list = element.querySelector('.evalui-list');
  const row = column && column.parentElement;
  if (!table || !row || !row.clientWidth || !list.clientWidth) return;
  const extra = column.getBoundingClientRect().width - list.clientWidth;
  table.style.width = 'min-content'; const narrowest = table.offsetWidth + extra;
  table.style.width = 'max-content'; const natural = table.offsetWidth + extra;
  table.style.width = '';
  const room = row.clientWidth;
  const wanted = Number(stored(WIDTH, 0)) || Math.min(Math.max(natural, 0.4 * room), 0.6 * room);
  const width = Math.ceil(Math.max(narrowest, Math.min(wanted, room - 360)));
  column.style.flex = `0 0 ${width}px`; column.style.minWidth = `${Math.ceil(narrowest)}px`; column.style.maxWidth = 'none';
};
const scroller = () => {
  for (let box = element.parentElement; box && box !== document.body; box = box.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(box).overflowY) && box.scrollHeight > box.clientHeight) return box;
  }
  return null;
};
const reveal = (tries) => {
  const row = element.querySelector('tr.evalui-selected');
  if (!row) return;
  if (!row.offsetParent) { if (tries > 0) setTimeout(() => { fit(); reveal(tries - 1); }, 200); return; }
  const box = scroller();
  if (box) {
    const at = row.getBoundingClientRect(), seen = box.getBoundingClientRect();
    if (at.top < seen.top || at.bottom > seen.bottom) box.scrollTop += at.top - seen.top - (seen.height - at.height) / 2;
  }
  if (element.querySelector('.evalui-list[data-reveal]')) row.scrollIntoView({block: 'center'});
};
element.addEventListener('change', (event) => {
  const box = event.target.closest('input[data-column]');
  if (!box) return;
  const off = new Set(stored(HIDDEN, []));
  if (box.checked) off.delete(box.dataset.column); else off.add(box.dataset.column);
  localStorage.setItem(HIDDEN, JSON.stringify([...off]));
  columns(); fit();
});
const rendered = () => { columns(); fit(); reveal(25); };
watch('value', rendered);
rendered();
// The row's size changes with the window, and from nothing when a hidden tab's viewer is first shown.
if (pane()) {
  pane().parentElement.addEventListener('evalui-resize', fit);
  new ResizeObserver(() => fit()).observe(pane().parentElement);
}
if (!window.evaluiViewerKeys) {
  window.evaluiViewerKeys = true;
  document.addEventListener('keydown', (event) => {
    const typing = event.target.closest && event.target.closest('input, textarea, select, [contenteditable="true"]');
    let offset = 0;
    if (event.altKey && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) offset = event.key === 'ArrowDown' ? 1 : -1;
    else if (!typing && !event.altKey && !event.ctrlKey && !event.metaKey) {
      if (event.key === 'j') offset = 1; else if (event.key === 'k') offset = -1;
      else if (event.target.closest && event.target.closest('.evalui-viewer-list')
               && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) offset = event.key === 'ArrowDown' ? 1 : -1;
    }
    if (!offset) return;
    const suffix = offset > 0 ? '-inspector-next' : '-inspector-prev';
    const button = [...document.querySelectorAll(`[id$="${suffix}"]`)].find((b) => b.offsetParent !== null);
    if (button) { event.preventDefault(); button.click(); }
  });
}
"""

# The bar between the list and the transcript: dragging it sets the list's width (kept in
# localStorage; the list's script keeps it wide enough for its table), a double click forgets it.
HANDLE_JS = """
const bar = element.closest('.block') || element;
Object.assign(bar.style, {flex: '0 0 10px', minWidth: '10px', alignSelf: 'stretch', cursor: 'col-resize',
  background: 'linear-gradient(90deg, transparent 4px, #d0d7de 4px, #d0d7de 6px, transparent 6px)',
  touchAction: 'none'});
const panes = bar.parentElement;
const list = () => panes.querySelector(':scope > .evalui-viewer-list-pane');
const resized = () => panes.dispatchEvent(new CustomEvent('evalui-resize'));
bar.addEventListener('pointerdown', (event) => {
  if (!list()) return;
  event.preventDefault();
  bar.setPointerCapture(event.pointerId);
  const left = list().getBoundingClientRect().left;
  const move = (e) => { localStorage.setItem('evalui.viewer.list-width', JSON.stringify(Math.round(e.clientX - left))); resized(); };
  const stop = () => { bar.removeEventListener('pointermove', move); bar.removeEventListener('pointerup', stop); };
  bar.addEventListener('pointermove', move);
  bar.addEventListener('pointerup', stop);
});
bar.addEventListener('dblclick', () => { localStorage.removeItem('evalui.viewer.list-width'); resized(); });
"""

# The pane's tabs (transcript, JSON: the tab chosen stays for the next sample) and its Copy button,
# which puts the JSON on the clipboard and marks itself copied (data-copied); off a secure context the
# older execCommand copy is used.
DETAIL_JS = """
const show = (name) => {
  const sample = element.querySelector('.evalui-sample');
  if (!sample) return;
  sample.dataset.tab = name;
  sample.querySelectorAll('.evalui-tabbar button[data-tab]').forEach((b) => b.setAttribute('aria-selected', String(b.dataset.tab === name)));
};
watch('value', () => { if (element.dataset.tab) show(element.dataset.tab); });  // the next sample opens on the same tab
element.addEventListener('click', (event) => {
  const tab = event.target.closest('.evalui-tabbar button[data-tab]');
  if (tab) { element.dataset.tab = tab.dataset.tab; show(tab.dataset.tab); return; }
  const copy = event.target.closest('button.evalui-copy');
  if (!copy) return;
  const text = copy.closest('.evalui-sample').querySelector('pre[data-role="json"]').textContent;
  const done = () => { copy.dataset.copied = 'true'; copy.textContent = copy.dataset.copiedText; };
  const older = () => {
    const area = document.createElement('textarea');
    area.value = text; area.style.position = 'fixed'; area.style.opacity = '0';
    document.body.appendChild(area); area.select();
    try { if (document.execCommand('copy')) done(); } finally { area.remove(); }
  };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, older); else older();
});
"""

WHOLE_OUTPUTS = 11  # len(ViewerParts.whole()): the screen (5), the filters (5), the precision line
FILTERS = ("verdict", "group", "error_type", "finding")
NEW_VIEW = {"run": None, "sort": "position", "desc": False, "page": 0, "selected": None, "pinned": False}


@dataclass
class ViewerParts:
    panel: gr.Column
    view: gr.State
    verdict: gr.Dropdown
    group: gr.Dropdown
    error_type: gr.Dropdown
    finding: gr.Dropdown
    search: gr.Textbox
    listing: gr.HTML
    previous: gr.Button
    next: gr.Button
    position: gr.Markdown
    detail: gr.HTML
    labels: viewer_labels.LabelParts

    @property
    def filters(self) -> list:
        return [self.verdict, self.group, self.error_type, self.finding, self.search]

    def screen(self) -> list:
        """The outputs ``screen`` fills, in its order."""
        return [self.view, self.listing, self.position, self.detail, self.labels.labelled]

    def whole(self) -> list:
        """The outputs ``open_run`` fills: the screen, the filters (reset) and the labels' precision."""
        return [*self.screen(), *self.filters, self.labels.precision]


def _criteria(values) -> dict:
    verdict, group, error_type, finding, text = values
    return {"verdict": verdict, "group": group, "error_type": error_type, "finding": finding, "text": text or ""}


def _dressed(store, exp_id: str, sample_id: str | None, pane: str, text: str) -> str:
    """The pane under its tabs (transcript, JSON, copy), the search's hits marked and counted."""
    sample = data.sample_of(store, exp_id, sample_id) if sample_id else None
    if sample is None:
        return pane
    phrases = store_search.checked_phrases(text)
    marked, hits = transcript.highlighted(pane, phrases)
    return transcript.with_tabs(marked, transcript.sample_json(sample), say, hits if phrases else None, text.strip())


def screen(store, view: dict, values, *, select: str | None = None, offset: int = 0, page: int | None = None,
           sort: str | None = None, reveal: bool = False) -> tuple:
    """The list, position, pane and labelling choices for ``view`` under the filter ``values``:
    ``select`` a sample, step ``offset`` from the selected one, turn to ``page`` or sort by ``sort``
    (which shows the first page). ``reveal``: the page scrolls to the selected row (a deep link)."""
    view = dict(view or NEW_VIEW)
    if sort:
        view["desc"] = not view["desc"] if view["sort"] == sort else False
        view["sort"] = sort
        page = 0
    if not view.get("run"):
        return view, "", "0 / 0", "", gr.update(choices=[], value=None)
    criteria = _criteria(values)
    _, shown = data.listing(store, view["run"], **criteria, column=view["sort"], descending=view["desc"])
    ids = [r["id"] for r in shown]
    before = view.get("selected")
    chosen = select if select in ids else rows.step(ids, before, offset) if offset else \
        before if before in ids else (ids[0] if ids else None)
    turned = page is not None
    page_rows, view["page"] = rows.page_of(shown, page if turned else rows.page_holding(ids, chosen))
    listing = rows.list_html(page_rows, selected=chosen, column=view["sort"], descending=view["desc"],
                             page=view["page"], total=len(shown), words=say, reveal=reveal)
    view["selected"] = chosen
    if chosen == before and turned:
        return view, listing, rows.position_text(ids, chosen), gr.skip(), gr.skip()
    pane, choices = data.pane(store, view["run"], chosen, say)
    return (view, listing, rows.position_text(ids, chosen), _dressed(store, view["run"], chosen, pane, criteria["text"]),
            gr.update(choices=choices, value=choices[0][1] if choices else None))


def open_run(store, exp_id: str | None, sample_id: str | None = None, verdict: str = rows.ALL,
             pinned: bool = False) -> tuple:
    """Every output of ``whole()`` for ``exp_id`` with the filters reset (but ``verdict``), showing
    ``sample_id``; a ``pinned`` run (a deep link's) scrolls the page to that sample's row."""
    view = {**NEW_VIEW, "run": exp_id, "pinned": pinned}
    if not exp_id:
        return (*screen(store, view, [rows.ALL] * 4 + [""]),
                *(gr.update(choices=filter_choices.labelled(key, [rows.ALL]), value=rows.ALL) for key in FILTERS),
                "", "")
    choices = rows.filter_choices(data.run_rows(store, exp_id))
    verdict = verdict if verdict in choices["verdict"] else rows.ALL
    shown = screen(store, view, [verdict, rows.ALL, rows.ALL, rows.ALL, ""], select=sample_id, reveal=pinned)
    return (*shown, gr.update(choices=filter_choices.labelled("verdict", choices["verdict"]), value=verdict),
            *(gr.update(choices=filter_choices.labelled(key, choices[key]), value=rows.ALL) for key in FILTERS[1:]), "",
            viewer_labels.precision_line(store, exp_id))


def forget_deleted(store, view: dict | None) -> tuple:
    """An empty viewer when the run it shows is no longer stored (deleted); else nothing changes."""
    exp_id = (view or {}).get("run")
    if exp_id and store.experiment(exp_id) is None:
        return open_run(store, None)
    return tuple(gr.skip() for _ in range(WHOLE_OUTPUTS))


def _safely(handler, outputs: int):
    """An id that is gone (a run deleted meanwhile) is a warning, not a broken page."""
    @functools.wraps(handler)  # Gradio reads the handler's signature (its gr.EventData parameter)
    def run(*args, **kwargs):
        try:
            return handler(*args, **kwargs)
        except InputError as exc:
            gr.Warning(html.escape(str(exc)))
            return tuple(gr.skip() for _ in range(outputs))
    return run


def build(demo, store, follow: gr.Dropdown | None = None, ends=None, *, prefix: str, title=None) -> ViewerParts:
    """The viewer, following ``follow`` (the tab's run dropdown) and refreshing when ``ends`` (the
    launcher's progress bar) changes while no run goes."""
    with gr.Column(elem_id=f"{prefix}-inspector", elem_classes=["evalui-viewer"]) as panel:
        # A tab with two viewers names what each one shows (``title``, a UI string).
        gr.Markdown("### " + (title or t("inspector.title")))
        view = gr.State(dict(NEW_VIEW))
        with gr.Row():
            verdict = gr.Dropdown(filter_choices.every(), value=rows.ALL, label=t("inspector.verdict"),
                                  elem_id=f"{prefix}-inspector-verdict")
            group = gr.Dropdown(filter_choices.every(), value=rows.ALL, label=t("inspector.group"), elem_id=f"{prefix}-inspector-group")
            error_type = gr.Dropdown(filter_choices.every(), value=rows.ALL, label=t("inspector.error_type"),
                                     elem_id=f"{prefix}-inspector-error-type")
            finding = gr.Dropdown(filter_choices.every(), value=rows.ALL, label=t("inspector.finding"),
                                  elem_id=f"{prefix}-inspector-finding")
            search = gr.Textbox(label=t("inspector.search"), elem_id=f"{prefix}-inspector-search")
        with gr.Row(equal_height=False, elem_classes=["evalui-viewer-panes"]):
            with gr.Column(scale=2, min_width=320, elem_classes=["evalui-viewer-list-pane"]):
                listing = gr.HTML("", html_template="${value}", css_template=LIST_CSS, js_on_load=LIST_JS,
                                  elem_id=f"{prefix}-viewer-list", elem_classes=["evalui-viewer-list"],
                                  max_height=640)
                with gr.Row(equal_height=True):
                    previous = gr.Button(t("inspector.previous"), elem_id=f"{prefix}-inspector-prev", size="sm")
                    position = gr.Markdown("0 / 0", elem_id=f"{prefix}-inspector-position")
                    following = gr.Button(t("inspector.next"), elem_id=f"{prefix}-inspector-next", size="sm")
            gr.HTML("", js_on_load=HANDLE_JS, elem_id=f"{prefix}-viewer-handle", elem_classes=["evalui-viewer-handle"],
                    min_width=10, scale=0)
            with gr.Column(scale=3, min_width=360, elem_classes=["evalui-viewer-detail-pane"]):
                detail = gr.HTML("", css_template=TRANSCRIPT_CSS, js_on_load=DETAIL_JS, elem_id=f"{prefix}-inspector-detail",
                                 max_height=900)
                labels = viewer_labels.build(prefix)
    parts = ViewerParts(panel, view, verdict, group, error_type, finding, search, listing, previous, following,
                        position, detail, labels)
    quiet = {"api_visibility": "private", "show_progress": "hidden"}
    n_screen, n_whole = len(parts.screen()), WHOLE_OUTPUTS
    if len(parts.whole()) != WHOLE_OUTPUTS:
        raise RuntimeError("WHOLE_OUTPUTS no longer counts ViewerParts.whole()")

    def refilter(state, *values):
        return screen(store, {**state, "selected": None, "page": 0}, values)

    def clicked(state, verdict_value, group_value, error_value, finding_value, text, evt: gr.EventData):
        # Named inputs, not *values: Gradio finds the event's parameter by its position.
        values = (verdict_value, group_value, error_value, finding_value, text)
        event = getattr(evt, "_data", None) or {}
        action = event.get("action")
        if action == "open":
            return screen(store, state, values, select=str(event.get("sample") or ""))
        if action == "sort" and event.get("column") in rows.COLUMNS:
            return screen(store, state, values, sort=event["column"])
        if action == "page":
            return screen(store, state, values, page=int(event.get("page") or 0))
        return tuple(gr.skip() for _ in range(n_screen))

    def stepper(offset):
        return lambda state, *values: screen(store, state, values, offset=offset)

    def follow_run(exp_id, state):
        # A run that is going changes under the viewer: it loads once the run ends (``ends``). A deep
        # link pins its run against the page's own restoring of the dropdown.
        state = state or NEW_VIEW
        if not exp_id or is_running(exp_id) or state.get("pinned") or exp_id == state.get("run"):
            return tuple(gr.skip() for _ in range(n_whole))
        return open_run(store, exp_id)

    def chosen_by_user(exp_id, state):
        # Only a pinned viewer needs this: otherwise the change event that comes with it opens the run.
        if not exp_id or is_running(exp_id) or not (state or NEW_VIEW).get("pinned"):
            return tuple(gr.skip() for _ in range(n_whole))
        return open_run(store, exp_id)

    def refresh_after_run(exp_id):
        if not exp_id or is_running(exp_id):
            return tuple(gr.skip() for _ in range(n_whole))
        return open_run(store, exp_id)

    for control in (verdict, group, error_type, finding):
        control.input(_safely(refilter, n_screen), [view, *parts.filters], parts.screen(), **quiet)
    search.submit(_safely(refilter, n_screen), [view, *parts.filters], parts.screen(), **quiet)
    listing.click(_safely(clicked, n_screen), [view, *parts.filters], parts.screen(), **quiet)
    previous.click(_safely(stepper(-1), n_screen), [view, *parts.filters], parts.screen(), **quiet)
    following.click(_safely(stepper(1), n_screen), [view, *parts.filters], parts.screen(), **quiet)
    viewer_labels.wire(store, labels, view, detail, pane=lambda exp_id, sample_id: _dressed(
        store, exp_id, sample_id, data.pane(store, exp_id, sample_id, say)[0], ""))
    if follow is not None:
        follow.change(_safely(follow_run, n_whole), [follow, view], parts.whole(), **quiet)
        follow.input(_safely(chosen_by_user, n_whole), [follow, view], parts.whole(), **quiet)
        if ends is not None:
            ends.change(_safely(refresh_after_run, n_whole), [follow], parts.whole(), **quiet)
    return parts


def include(demo, store, launcher_parts, title=None) -> ViewerParts:
    """The one line a launcher tab adds: a viewer that follows the tab's runs."""
    prefix = launcher_parts.start.elem_id.removesuffix("-start")
    return build(demo, store, launcher_parts.runs, launcher_parts.progress, prefix=prefix, title=title)
