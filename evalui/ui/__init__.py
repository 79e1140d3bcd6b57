"""The Gradio dashboard: one module per tab, each thin over the functions the CLI calls."""

from __future__ import annotations

from evalui.ui.space import on_space


def build_demo(store=None):
    import gradio as gr

    from evalui.core import registry
    from evalui.store.run_store import RunStore
    from evalui.ui.i18n.strings import t
    from evalui.ui.review import tab as verify_tab
    from evalui.ui.review import view as verify_view
    from evalui.ui.tabs import aime, bfcl, gaia
    from evalui.ui.tabs import generic as generic_tab
    from evalui.ui.tabs import runs as runs_tab
    from evalui.ui.tabs import score as score_tab
    from evalui.ui.tabs.endpoint_panel import build_endpoint_panel
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
        endpoint = build_endpoint_panel()
        with gr.Tabs() as tabs:
            with gr.Tab(t("tab.bfcl"), id="bfcl", elem_id="tab-bfcl"):
                bfcl.build(demo, store, endpoint)
            with gr.Tab(t("tab.gaia"), id="gaia", elem_id="tab-gaia"):
                gaia.build(demo, store, endpoint)
            with gr.Tab(t("tab.aime"), id="aime", elem_id="tab-aime"):
                aime.build_generation(demo, store, endpoint)
            with gr.Tab(t("tab.aime_results"), id="aime-results", elem_id="tab-aime-results"):
                review_button, chosen_file = aime.build_results(demo, store, endpoint)
            with gr.Tab(t("tab.verify"), id="verify", elem_id="tab-verify"):
                verify_file = verify_tab.build(demo)
            with gr.Tab(t("tab.runs"), id="runs", elem_id="tab-runs"):
                runs_tab.build(demo, store, endpoint)
            with gr.Tab(t("tab.score"), id="score", elem_id="tab-score"):
                score_tab.build()
            for name in registry.extra_names():  # benchmarks added through the registry
                spec = registry.get(name)
                with gr.Tab(spec.title, id=name, elem_id=f"tab-{name}"):
                    generic_tab.build(demo, store, endpoint, spec)
        # "Review these problems" in the AIME results tab opens the same file in the panel.
        review_button.click(lambda path: review_in_panel(path, verify_view.file_choices()), [chosen_file],
                            [tabs, verify_file], api_visibility="private")
    gate_reads(demo)
    limit_progress_targets(demo)
    relax_idle_polling(demo)
    return demo


def review_in_panel(chosen: str | None, choices: list[tuple[str, str]]):
    """The Verification tab with the AIME results tab's file open. The two lists may name a file
    differently (relative or absolute), so the panel's own value for the same file is chosen."""
    import gradio as gr

    from evalui.config import data_dir, runs_dir
    from evalui.ui.tabs.aime import generated_path

    target = generated_path(chosen)
    value = next((v for _, v in choices
                  if target and any((root / v).resolve() == target for root in (runs_dir(), data_dir()))), None)
    return gr.Tabs(selected="verify"), gr.update(choices=choices, value=value)
