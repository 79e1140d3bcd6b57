"""The Gradio dashboard: one module per tab, each thin over the functions the CLI calls."""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalui.ui.space import on_space


@dataclass(frozen=True)
class BenchmarkTab:
    """A benchmark's own tab: its title (a UI string key), its id (``#tab-<id>`` on the page), and
    ``build(demo, store, endpoint)``, which lays it out and returns None or a ReviewLink. A spec names
    its tabs by ``Benchmark.tabs``; the dashboard puts them first, in the registry's order."""

    title: str
    id: str
    build: Callable[[Any, Any, Any], ReviewLink | None]


@dataclass(frozen=True)
class ReviewLink:
    """A tab's button that opens the file chosen in ``chosen`` in the Verification panel; ``resolve``
    maps the choice to the file's path (None: not a file the panel may open)."""

    button: Any
    chosen: Any
    resolve: Callable[[str | None], Path | None]


def build_demo(store=None):
    import gradio as gr

    from evalui.core import registry
    from evalui.store.run_store import RunStore
    from evalui.ui.i18n.strings import t
    from evalui.ui.launcher import launches
    from evalui.ui.review import tab as verify_tab
    from evalui.ui.review import view as verify_view
    from evalui.ui.tabs import generic as generic_tab
    from evalui.ui.tabs import runs as runs_tab
    from evalui.ui.tabs import score as score_tab
    from evalui.ui.tabs.endpoint_panel import build_endpoint_panel, follow_launches
    from evalui.ui.tabs.progress_targets import limit_progress_targets
    from evalui.ui.web.gradio_queue import quiet_queue_records, relax_idle_polling
    from evalui.ui.web.read_gate import gate_reads

    store = store or RunStore()
    quiet_queue_records()
    # No Gradio telemetry: usage data of an evaluation dashboard is not Gradio's, and its version
    # check (a thread per app) waits on PyPI, which a Space or a closed network may not reach.
    with gr.Blocks(title="evalui", analytics_enabled=False) as demo:
        gr.Markdown(t("app.title"))
        if on_space():
            # Only on a Space: elsewhere the button makes Gradio call whoami() while building the page.
            # No icon: Gradio's own would put its install path into the page's config.
            gr.LoginButton(icon=None)
        endpoint = build_endpoint_panel(demo)
        specs = [registry.get(name) for name in registry.names()]
        links, pages = [], []
        with gr.Tabs() as tabs:
            for spec in specs:  # benchmarks with tabs of their own, in the registry's order
                for tab in own_tabs(spec):
                    with gr.Tab(t(tab.title), id=tab.id, elem_id=f"tab-{tab.id}") as page:
                        pages.append(page)
                        link = tab.build(demo, store, endpoint)
                        if link is not None:
                            links.append(link)
            with gr.Tab(t("tab.verify"), id="verify", elem_id="tab-verify") as verify_page:
                verify_file = verify_tab.build(demo)
            with gr.Tab(t("tab.runs"), id="runs", elem_id="tab-runs") as page:
                pages.append(page)
                runs_tab.build(demo, store, endpoint)
            with gr.Tab(t("tab.score"), id="score", elem_id="tab-score") as page:
                pages.append(page)
                score_tab.build()
            for spec in specs:  # benchmarks that have the generic tab, made from their options
                if spec.tabs is None:
                    with gr.Tab(spec.title, id=spec.name, elem_id=f"tab-{spec.name}") as page:
                        pages.append(page)
                        generic_tab.build(demo, store, endpoint, spec)
        for link in links:  # a tab's button that opens its chosen file in the Verification panel
            link.button.click(opener(link, verify_view.file_choices), [link.chosen],
                              [tabs, verify_file, endpoint.area], api_visibility="private")
        follow_launches(endpoint, launches(demo))
        # The endpoint panel is for starting runs: the verification tab's form fits the window without it.
        verify_page.select(lambda: gr.Column(visible=False), None, [endpoint.area], api_visibility="private",
                           show_progress="hidden")
        for page in pages:
            page.select(lambda: gr.Column(visible=True), None, [endpoint.area], api_visibility="private",
                        show_progress="hidden")
    gate_reads(demo)
    limit_progress_targets(demo)
    relax_idle_polling(demo)
    return demo


def own_tabs(spec) -> tuple[BenchmarkTab, ...]:
    """The tabs a spec names (its ``tabs``, module:attr); none for "" and None."""
    return tuple(pkgutil.resolve_name(spec.tabs)) if spec.tabs else ()


def opener(link: ReviewLink, file_choices: Callable[[], list[tuple[str, str]]]):
    """The button's handler: the Verification tab with the file open, and the endpoint panel hidden
    (a tab selected this way sends no select event)."""
    import gradio as gr

    return lambda chosen: (*review_in_panel(chosen, file_choices(), link.resolve), gr.Column(visible=False))


def review_in_panel(chosen: str | None, choices: list[tuple[str, str]], resolve: Callable[[str | None], Path | None]):
    """The Verification tab with a tab's chosen file open. The two lists may name a file differently
    (relative or absolute), so the panel's own value for the same file is chosen."""
    import gradio as gr

    from evalui.config import data_dir, runs_dir

    target = resolve(chosen)
    value = next((v for _, v in choices
                  if target and any((root / v).resolve() == target for root in (runs_dir(), data_dir()))), None)
    return gr.Tabs(selected="verify"), gr.update(choices=choices, value=value)
