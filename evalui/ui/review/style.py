"""The verification panel's compact layout, so that the whole review form, Save included, fits a
1440x900 screen: each 1–5 choice on one line beside its label, smaller gaps, and the reading side
(problem, judge, reviews) in boxes that scroll instead of pushing the form down.

Gradio 6 takes page CSS only at launch(), which the panel does not own; the rules come with the
panel, in an HTML block's template (as the launcher's sticky bar does), and name only its own ids
and classes.
"""

from __future__ import annotations

import gradio as gr

PANEL_CSS = """<style>
#verify-panel { gap: 8px; }
#verify-panel .block { padding-top: 6px; padding-bottom: 6px; }
#verify-top, #verify-form, #verify-scoring, #verify-reading, #verify-nav { gap: 8px; }
/* A choice's label on the left, its options on one line to the right: a label above wrapped 1..5. */
.verify-inline { display: flex !important; align-items: center; gap: 12px; }
.verify-inline > [data-testid="block-info"] { flex: 0 0 8.5em; margin: 0; }
.verify-inline > .wrap { flex-wrap: nowrap; gap: 6px; }
.verify-inline > .wrap label { margin: 0; white-space: nowrap; }
/* Words wrap at their boundaries, never inside ("weigh t"); ids stay whole. */
#verify-panel, #verify-panel td, #verify-panel th { word-break: normal !important; overflow-wrap: normal !important; }
#verify-panel code { white-space: nowrap; }
#verify-panel table { font-size: var(--text-sm); }
#verify-panel td, #verify-panel th { padding: 4px 8px !important; }
#verify-problem, #verify-others { overflow: auto; }
#verify-upload, #verify-refresh { align-self: center; }
#verify-style { display: none; }
</style>"""


def build() -> None:
    """The panel's CSS, as a block of its own that takes no room."""
    gr.HTML("", html_template=PANEL_CSS + "${value}", js_on_load=None, elem_id="verify-style", padding=False,
            container=False)
