"""Markdown with LaTeX for problems written by models."""

from __future__ import annotations

import html

from evalui.reports.markdown import defuse_links
from evalui.ui.i18n.strings import say

LATEX_DELIMITERS = [
    {"left": "$$", "right": "$$", "display": True},
    {"left": "$", "right": "$", "display": False},
    {"left": "\\(", "right": "\\)", "display": False},
    {"left": "\\[", "right": "\\]", "display": True},
]


def inert_markdown(text: object) -> str:
    """Model text for a gr.Markdown: HTML tags are shown as text, never rendered; Markdown images and
    links are shown as text, so the browser fetches nothing; LaTeX still renders."""
    return defuse_links(html.escape("" if text is None else str(text), quote=False))


def problem_markdown(problem: dict, *, heading: str | None = None) -> str:
    title = heading or f"{problem.get('problem_id', '')} · {problem.get('topic', '')}"
    return "\n\n".join([
        f"#### {inert_markdown(title)}",
        inert_markdown(problem.get("problem", "")),
        f"**{say('problem.answer')}** {inert_markdown(problem.get('answer', ''))}",
        f"<details><summary>{say('problem.solution')}</summary>\n\n{inert_markdown(problem.get('solution', ''))}\n\n</details>",
    ])
