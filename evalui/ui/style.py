"""The page's own CSS, given to ``launch(css=…)`` (Gradio 6 takes it there, not in Blocks)."""

from __future__ import annotations

# Gradio wraps table cells with ``word-break: break-word``, which splits short words ("correc t")
# as soon as a column is narrow. Break inside a word only when the word alone is wider than its
# column (a long id or JSON), and let a table show a useful number of rows before it scrolls.
TABLES = """
.gradio-container .cell-wrap .text.wrap, .gradio-container .cell-wrap .wrap {
    word-break: normal !important;
    overflow-wrap: break-word !important;
    hyphens: none;
}
.gradio-container .table-wrap { min-height: 12rem; }
"""


def page_css() -> str:
    return TABLES
