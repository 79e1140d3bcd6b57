"""The inspector's transcript pane (evalui.viewer.transcript) is HTML in which model text stays text."""
from __future__ import annotations

from unit.viewer.test_inspector_data import AGENT_STEPS, sample

from evalui.viewer.transcript import transcript_html


def test_model_text_is_escaped_in_the_html():
    hostile = sample("<x>", "<g>", correct=False, verdict={"error": "<script>alert(1)</script>"},
                     prediction='<img src=x onerror="alert(1)">', trajectory=AGENT_STEPS)
    page = transcript_html("toy", hostile, '<run">')
    for raw in ("<img", "<script", "<b>bold", "<x>", "<g>", 'run">'):
        assert raw not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;x&gt;" in page and "&lt;g&gt;" in page
