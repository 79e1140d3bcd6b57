"""The Gradio dashboard: one module per tab, each thin over the functions the CLI calls."""

from __future__ import annotations


def build_demo():
    import gradio as gr

    from evalui.ui import score_tab

    with gr.Blocks(title="evalui") as demo:
        gr.Markdown("# evalui\nEvaluate LLM agents: BFCL function calling, GAIA, generated AIME problems.")
        with gr.Tabs():
            with gr.Tab("Score files", id="score"):
                score_tab.build()
    return demo
