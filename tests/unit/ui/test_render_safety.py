"""Text a model, a reviewer or an uploaded file wrote is shown as text wherever evalui writes
Markdown: no HTML, no image a browser would fetch, no link. Rendered with a CommonMark renderer
(as GitHub and editors render report.md); the page itself is checked in tests/browser/test_beacons.py."""
from __future__ import annotations

import json
import re

import pytest

from evalui.reports.markdown import inert, table
from evalui.ui.latex import inert_markdown, problem_markdown

markdown_it = pytest.importorskip("markdown_it")
BEACON = "http://127.0.0.1:9/beacon"
HOSTILE = [f"![m]({BEACON})", f'<img src="{BEACON}">', f"[click]({BEACON})", f"<{BEACON}>", BEACON,
           f"![m][r]\n\n[r]: {BEACON}", "www.beacon.example/x", f"!\\\\[m]({BEACON})",
           "<script>window.x=1</script> ![a](data:x) | pipe ` tick"]


def rendered(markdown: str) -> str:
    return markdown_it.MarkdownIt("commonmark").enable("table").render(markdown)


def assert_inert(html: str) -> None:
    assert "<img" not in html, html
    assert "<script" not in html, html
    # The only links are evalui's own, to the files beside the report.
    assert all(":" not in href and "/" not in href for href in re.findall(r'<a href="([^"]*)"', html)), html
    assert html.count("<a ") == len(re.findall(r'<a href="', html)), html


@pytest.mark.parametrize("text", HOSTILE)
def test_escaped_text_renders_no_image_link_or_tag(text):
    assert_inert(rendered(inert(text)))
    assert_inert(rendered(inert_markdown(text)))
    assert_inert(rendered(table(["cell"], [[text]])))
    assert_inert(rendered(problem_markdown({"problem_id": text, "topic": text, "problem": text, "answer": text,
                                            "solution": text})))


def test_the_text_still_reads_as_written_and_latex_keeps_its_delimiters():
    source = inert_markdown(f"![m]({BEACON}) and $\\frac{{1}}{{2}}$ and \\[x^2\\] and \\(y\\)")
    # The renderer turns the entities back into the characters: the reader sees what the model wrote.
    assert f"![m]({BEACON})" in rendered(source)
    # Gradio hands what lies between LaTeX delimiters to KaTeX before Markdown sees it: they stay as written.
    assert "\\[x^2\\]" in source and "\\(y\\)" in source and "$\\frac{1}{2}$" in source


def test_score_tab_figures_escape_a_hostile_level(tmp_path):
    from evalui.benchmarks.gaia.score_file import score_submission
    from evalui.ui.tabs.score import gaia_figures

    level = f'<img src="{BEACON}"> ![m]({BEACON})'
    metadata = tmp_path / "metadata.jsonl"
    metadata.write_text(json.dumps({"task_id": "t1", "Question": "q", "Final answer": "1", "Level": level}) + "\n")
    submission = tmp_path / "submission.jsonl"
    submission.write_text(json.dumps({"task_id": "t1", "model_answer": "1"}) + "\n")
    _, summary = score_submission(str(submission), str(metadata))
    figures = gaia_figures(summary)
    assert "<img" not in figures and f"]({BEACON})" not in figures
    assert_inert(rendered(figures))
