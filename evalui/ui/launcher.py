"""The part every launcher tab shares: start a background run, stream its progress, cancel it,
list stored runs, and pick the run up again after a reload."""

from __future__ import annotations

import html
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from evalui.endpoint.preflight import PreflightError
from evalui.endpoint.url_policy import RefusedURL
from evalui.errors import InputError
from evalui.reports.markdown import defuse_links, inert
from evalui.run.background import BackgroundRun, background_runs
from evalui.run.live import live_state
from evalui.store.run_store import RunStore
from evalui.ui.i18n.strings import t
from evalui.ui.live_status import accuracy_so_far, live_status, resumed_at  # noqa: F401  (accuracy_so_far: for the tabs)
from evalui.ui.refresh import runs_refresh_s
from evalui.ui.run_view import is_running, latest_running, log_text, run_choices
from evalui.ui.web.access import bare_names, require_access, say
from evalui.ui.web.visitor_runs import RUNS_IN_FLIGHT

POLL_S = 0.5  # how often the page re-reads a running run's progress
LIVE_RESULTS_S = 3.0  # how often a running run's charts and tables are rebuilt, when it has new verdicts
MAX_EPOCHS = 100  # a visitor's typo must not ask every sample thousands of times

# prepare(*inputs) -> (exp_id, work); work(run) runs in the background and returns a summary.
Prepare = Callable[..., tuple[str, Callable[[BackgroundRun], object]]]
ResultsView = Callable[[str | None], tuple]


@dataclass
class LauncherParts:
    start: gr.Button
    cancel: gr.Button
    status: gr.Markdown
    log: gr.Textbox
    runs: gr.Dropdown
    refresh: gr.Button
    progress: gr.HTML
    max_cost: gr.Number  # the run's budget in USD (--max-cost); 0: none, or what a resumed run has


# The controls, status and progress stick to the top of the window while the page scrolls (at
# 1440×900 the results are far below them). Gradio 6 takes page CSS only at launch(), so the rule
# comes with the bar itself, in the progress HTML's template.
# Gradio's container has overflow: hidden, which makes it the bar's scroll container (one that never
# scrolls), so the bar would never stick; overflow: clip cuts the same overflow without that.
# Every launcher tab has the bar, so the form's own rules come with it too: a compact multiselect
# (option_inputs.COMPACT_CHOICES) shows its chosen values on a few lines at most, then scrolls.
STICKY_CSS = """<style>
.gradio-container { overflow: clip !important; }
#%(bar)s { position: sticky; top: 0; z-index: 1000; background: var(--body-background-fill);
  padding: 6px 0; border-bottom: 1px solid var(--border-color-primary); }
.evalui-compact-choices .wrap-inner { max-height: 4.6em; overflow-y: auto; }
.evalui-progress[data-state=paused] progress { filter: grayscale(1); }
</style>"""

# After a start, the bar comes up to the top of the window when it sits in the lower half: the status
# grows below it (requests in flight, a pause), and at 1440×900 it would be out of sight.
BAR_IN_VIEW_JS = """() => {
  const bar = document.getElementById('%s')?.closest('[id$="-status-bar"]');
  if (!bar) return;
  const top = bar.getBoundingClientRect().top;
  if (top > window.innerHeight * 0.4) window.scrollBy({top: top - 8, behavior: 'instant'});
}"""

# Inputs that several tabs share (the endpoint panel's) carry this class: their own panel remembers
# them across a reload, so no launcher restores them (two tabs' memories would race).
SHARED_INPUT = "evalui-shared-input"


@dataclass
class Launch:
    """A launcher's start, for the page's parts that follow every start (the endpoint panel)."""

    started: Any  # the start's event, to chain on
    run_id: gr.State  # the run it started; None when it did not start one


def launches(demo) -> list[Launch]:
    """The starts wired on ``demo`` so far (the page keeps them: each page is built once)."""
    return demo.__dict__.setdefault("evalui_launches", [])


def shared(component) -> bool:
    return SHARED_INPUT in (getattr(component, "elem_classes", None) or [])



def preflight_reason(exc: PreflightError | RefusedURL) -> str:
    """Why the endpoint cannot serve a run, in the visitor's language, as HTML-safe text (toasts
    render HTML, and the server's words and its URL are not ours)."""
    if isinstance(exc, RefusedURL):
        return say("msg.url_refused", reason=html.escape(str(exc)))
    reason = say(f"preflight.{exc.kind}", **exc.facts) + (f": {exc.detail}" if exc.detail else "")
    return say("msg.endpoint_failed", reason=html.escape(reason))

def build_controls(prefix: str, start_label: str) -> LauncherParts:
    with gr.Column(elem_id=f"{prefix}-status-bar"):
        with gr.Row():
            # Enabled by the page's load (wire's reopen): a start clicked before that load returned
            # was overwritten by it, the session's run set back to none and its status to "No run selected."
            start = gr.Button(start_label, variant="primary", elem_id=f"{prefix}-start", interactive=False)
            cancel = gr.Button(t("run.cancel"), variant="stop", elem_id=f"{prefix}-cancel")
        with gr.Row(equal_height=True):
            status = gr.Markdown(t("run.none"), elem_id=f"{prefix}-status")
            # The progress bar gets a place of its own: drawn over the status line it greys the line out.
            progress = gr.HTML("", min_height=60, elem_id=f"{prefix}-progress", js_on_load=None,
                               html_template=STICKY_CSS % {"bar": f"{prefix}-status-bar"} + "${value}")
    # Three lines: the progress bar says how far the run is; the log is for its last few messages.
    log = gr.Textbox(label=t("run.log"), lines=3, max_lines=3, autoscroll=True, interactive=False, elem_id=f"{prefix}-log")
    with gr.Row():
        # Custom values: an API caller may open any stored run, listed on its page or not (show_run checks it).
        runs = gr.Dropdown(choices=[], label=t("run.stored"), elem_id=f"{prefix}-runs", scale=4, allow_custom_value=True)
        refresh = gr.Button(t("run.refresh"), scale=1, elem_id=f"{prefix}-runs-refresh")
        # 0 (no limit) rather than empty: an input with a value is one API callers may leave out.
        max_cost = gr.Number(value=0, minimum=0, label=t("run.max_cost"), info=t("run.max_cost_info"), scale=2,
                             elem_id=f"{prefix}-max-cost")
    return LauncherParts(start, cancel, status, log, runs, refresh, progress, max_cost)


# Gradio 6.31's Textbox autoscroll runs once, not on each new value, so the log would stay at its
# first lines. This keeps it at the newest line unless the reader has scrolled up to read.
FOLLOW_LOG_JS = """() => {
  const box = document.querySelector('#%s textarea');
  if (!box) return;
  if (!box.dataset.follow) {
    box.dataset.follow = '1';
    box.addEventListener('scroll', () => {
      box.dataset.follow = box.scrollTop + box.clientHeight >= box.scrollHeight - 24 ? '1' : '0';
    });
  }
  if (box.dataset.follow === '1') box.scrollTop = box.scrollHeight;
}"""


def epochs_input(prefix: str) -> gr.Number:
    """How many times to ask each sample; a tab passes it to ``wire``, which applies it to every run it starts."""
    return gr.Number(value=1, minimum=1, maximum=MAX_EPOCHS, precision=0, label=t("run.epochs"),
                     info=t("run.epochs_info"), elem_id=f"{prefix}-epochs")


def restorable(component) -> bool:
    """Inputs a reloaded page may get back from the browser: never a key, never an uploaded file."""
    if isinstance(component, gr.File):
        return False
    return not (isinstance(component, gr.Textbox) and component.type == "password")


def input_key(component, index: int) -> str:
    """An input's name in the remembered form: its element id, which outlives a reordered form."""
    return component.elem_id or f"#{index}"


def offered(value, choices) -> bool:
    """Whether the choices (values or (label, value) pairs) still hold ``value`` (or each of a list)."""
    values = {c[1] if isinstance(c, (tuple, list)) else c for c in choices}
    return all(v in values for v in (value if isinstance(value, list) else [value]))


def _json_value(value):
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return None
    return value


def wire(demo, store: RunStore, parts: LauncherParts, *, benchmark: str, inputs: list, prepare: Prepare,
         results: list, results_view: ResultsView, api_prefix: str, live_results: bool = False,
         adopt_running: bool = True, input_choices: dict | None = None, epochs: gr.Number | None = None,
         prices: list | None = None) -> gr.State:
    """Wire the controls; returns the session's current run id (a gr.State).

    ``results_view(None)`` gives the empty results. ``live_results`` refreshes the results while
    the run goes (for views that are cheap to build). ``benchmark`` "" lists the runs of every
    benchmark. A reloaded page reopens this session's run, or with ``adopt_running`` the newest
    run of ``benchmark`` that is going; ``input_choices`` gives the choices of dropdown inputs
    whose choices are filled in at load. ``epochs`` (an ``epochs_input``) comes last among the start's
    inputs, so API callers may leave it out; ``prepare`` never sees it: the run it prepared is asked
    that many times (1 keeps what a resumed run has). ``prices``, the endpoint panel's two price
    fields, come last of all, after the budget, so API callers may leave them out too; ``prepare``
    gets them as ``prices=(input, output)``. The form as it was at the last start comes back after a
    reload (not a key, not a file; the shared inputs are their panel's to remember).
    """
    current = gr.State(None)
    # The session's run, and the form as it was at the last start, kept in the browser across a reload.
    saved = gr.BrowserState(None, storage_key=f"evalui-{api_prefix}-run")
    form = gr.BrowserState(None, storage_key=f"evalui-{api_prefix}-form")
    launched = gr.State(None)  # the run the last start started, None when it did not start
    timer = gr.Timer(value=POLL_S, active=False)
    refreshed = gr.State(None)  # when the results of the run going were last rebuilt, at how many verdicts
    inputs = [*inputs, epochs] if epochs is not None else inputs
    # The budget (after epochs), then the panel's prices, come last: API callers may leave them out.
    inputs = [*inputs, parts.max_cost, *(prices or [])]
    keep = [restorable(c) and not shared(c) for c in inputs]
    kept = [(input_key(c, i), c) for i, (c, k) in enumerate(zip(inputs, keep)) if k]
    kept_components = [c for _, c in kept]
    input_choices = input_choices or {}
    nothing = tuple(gr.skip() for _ in results)
    idle, busy = gr.update(interactive=True), gr.update(interactive=False)

    def start_run(*values):
        # Returns as soon as the run is started: the timer follows it, so a run holds no queue slot.
        require_access("start runs")
        priced = {"prices": tuple(values[-len(prices):])} if prices else {}
        *own, budget = values[:-len(prices)] if prices else values
        asked = own[-1] if epochs is not None else None
        typed = {input_key(c, i): _json_value(v) for i, (c, v, k) in enumerate(zip(inputs, values, keep)) if k}
        try:
            # One of the visitor's run slots is held while the run is prepared, then the run keeps it.
            with RUNS_IN_FLIGHT.start(is_running) as owned:
                # The tab's prepare starts the run through evalui.run.run (options, endpoint check,
                # registration, epochs, budget), as the CLI does.
                run_id, work = prepare(*(own[:-1] if epochs is not None else own), **priced,
                                       epochs=int(asked) if asked and asked > 1 else None,
                                       max_cost_usd=float(budget) if budget else None)
                background_runs().start(run_id, work)
                owned(run_id)
        except (ValueError, InputError, gr.Error) as exc:
            # A warning and the status line, not a raised error: that would badge every output "Error".
            reason = (exc.message if isinstance(exc, gr.Error) else preflight_reason(exc)
                      if isinstance(exc, (PreflightError, RefusedURL)) else html.escape(bare_names(str(exc))))
            gr.Warning(reason)
            # The reason may quote the endpoint's reply or a file: in the status Markdown it is no link or image.
            return (gr.skip(), gr.skip(), typed, None, say("msg.not_started", reason=defuse_links(reason)),
                    gr.skip(), idle, *nothing, gr.skip(), gr.Timer(active=False))
        return (run_id, {"run_id": run_id}, typed, run_id, live_status(store, run_id), log_text(run_id), busy,
                *(results_view(run_id) if live_results else nothing), progress_bar(run_id), gr.Timer(active=True))

    def progress_bar(run_id) -> str:
        if not is_running(run_id):
            return ""
        counts = store.progress(run_id)
        label = f"{(benchmark or 'run').upper()} {counts['judged']}/{counts['total']}"
        state = live_state(run_id)
        live = state.requests if state is not None else None
        paused = bool(live is not None and live.paused())
        if live is not None:
            # The engine pauses and resumes by itself (its circuit breaker); the bar says which, it
            # offers no button: there is no pause a visitor could ask for.
            if paused:
                label += " · ⏸ " + say("msg.progress_paused")
            else:
                if at := resumed_at(run_id):
                    label += " · ▶ " + say("launcher.progress_resumed", at=at)
                if len(live.board):
                    label += " · " + say("msg.in_flight_count", count=len(live.board))
        meter = state.meter if state is not None else None
        if meter is not None:  # the cost so far, and once a few samples were answered, the whole run's
            label += " · " + say("msg.cost_live", spent=f"{meter.spent_usd:.4f}")
            if meter.estimate_usd() is not None:
                label += " · " + say("msg.cost_estimate", estimate=f"{meter.estimate_usd():.4f}")
        return (f'<div class="evalui-progress" data-state="{"paused" if paused else "going"}"><progress value="{counts["judged"]}" max="{max(counts["total"], 1)}" '
                f'style="width:100%"></progress><div>{html.escape(label)}</div></div>')

    def cancel_run(run_id):
        require_access("cancel runs")
        if run_id and background_runs().cancel(run_id, store):  # also a run another replica executes
            gr.Info(html.escape(say("msg.cancel_requested", exp_id=run_id)))
        elif not is_running(run_id):
            gr.Info(say("msg.nothing_to_cancel"))
        # "cancelling" at once; the start stream (or the timer after a reload) shows how it ends.
        return live_status(store, run_id)

    def list_runs(selected=None):
        return gr.update(choices=run_choices(store, benchmark), value=selected)

    def show_run(run_id):
        if run_id and store.experiment(run_id) is None:
            raise gr.Error(say("msg.no_such_run", exp_id=inert(run_id)))
        running = is_running(run_id)
        return (run_id, {"run_id": run_id}, live_status(store, run_id), log_text(run_id),
                *results_view(run_id), gr.Timer(active=running), busy if running else idle, progress_bar(run_id))

    def fresh_results(run_id, refreshed):
        """A running run's results, rebuilt every LIVE_RESULTS_S once it has new verdicts (a view
        may read the whole run: not on every tick); else nothing changes."""
        if live_results:
            return results_view(run_id), refreshed
        last = refreshed if isinstance(refreshed, dict) and refreshed.get("run_id") == run_id else {}
        judged = store.progress(run_id)["judged"]
        if judged == last.get("judged", 0) or time.monotonic() - last.get("at", 0.0) < LIVE_RESULTS_S:
            return nothing, refreshed
        return results_view(run_id), {"run_id": run_id, "judged": judged, "at": time.monotonic()}

    def poll(run_id, refreshed):
        if is_running(run_id):
            live, refreshed = fresh_results(run_id, refreshed)
            return (live_status(store, run_id), log_text(run_id), *live, busy, progress_bar(run_id),
                    gr.Timer(active=True), refreshed, gr.skip())
        run = background_runs().get(run_id) if run_id else None
        if run and run.error and not run.error_shown:
            run.error_shown = True
            gr.Warning(html.escape(say("msg.run_failed", error=bare_names(run.error))))
        # The run just ended: the stored-runs list must stop calling it "running".
        return (live_status(store, run_id), log_text(run_id), *results_view(run_id), idle, "", gr.Timer(active=False),
                None, gr.update(choices=run_choices(store, benchmark), value=run_id))

    def reopen(remembered, typed):
        remembered = remembered if isinstance(remembered, dict) else {}
        typed = typed if isinstance(typed, dict) else {}
        saved_id = remembered.get("run_id")
        run_id = saved_id if saved_id and store.experiment(saved_id) else None
        if adopt_running and not is_running(run_id):
            run_id = latest_running(store, benchmark) or run_id
        running = is_running(run_id)
        runs_update = gr.update(choices=run_choices(store, benchmark), value=run_id)
        updates = []
        for key, component in kept:
            choices = input_choices[component]() if component in input_choices else None
            if component is parts.runs:
                updates.append(runs_update)
            elif key not in typed or choices is not None and not offered(typed[key], choices):
                updates.append(gr.skip() if choices is None else gr.update(choices=choices))
            else:  # what was typed at the last start, whether that run still goes or not
                updates.append(gr.update(value=typed[key], **({} if choices is None else {"choices": choices})))
        tail = [] if parts.runs in kept_components else [runs_update]
        return (run_id, live_status(store, run_id), log_text(run_id), *results_view(run_id),
                gr.Timer(active=running), busy if running else idle, progress_bar(run_id), *updates, *tail)

    started = parts.start.click(start_run, inputs, [current, saved, form, launched, parts.status, parts.log,
                                                    parts.start, *results, parts.progress, timer],
                                api_name=f"{api_prefix}_start", concurrency_limit=8, concurrency_id="launchers")
    started.then(list_runs, [current], [parts.runs], api_visibility="private")
    started.then(None, None, None, js=BAR_IN_VIEW_JS % parts.status.elem_id)
    launches(demo).append(Launch(started, launched))
    parts.cancel.click(cancel_run, [current], [parts.status], api_name=f"{api_prefix}_cancel", show_progress="hidden")
    parts.refresh.click(list_runs, [current], [parts.runs], api_name=f"{api_prefix}_runs")
    parts.runs.input(show_run, [parts.runs], [current, saved, parts.status, parts.log, *results, timer, parts.start,
                                              parts.progress], api_name=f"{api_prefix}_show")
    parts.log.change(None, None, None, js=FOLLOW_LOG_JS % parts.log.elem_id, api_visibility="private")
    timer.tick(poll, [current, refreshed], [parts.status, parts.log, *results, parts.start, parts.progress, timer,
                                            refreshed, parts.runs],
               api_visibility="private", show_progress="hidden", concurrency_limit=None)
    # Runs that another process (the CLI, a worker) stores appear by themselves, without Refresh.
    known = gr.State(None)

    def runs_now(selected, listed):
        choices = run_choices(store, benchmark)
        if choices == listed:
            return gr.skip(), listed
        return gr.update(choices=choices, value=selected), choices

    gr.Timer(runs_refresh_s()).tick(runs_now, [current, known], [parts.runs, known], api_visibility="private",
                                    show_progress="hidden")
    demo.load(reopen, [saved, form], [current, parts.status, parts.log, *results, timer, parts.start, parts.progress,
                                      *kept_components, *([] if parts.runs in kept_components else [parts.runs])],
              api_visibility="private")
    return current
