"""The inspector's data: verdicts, filters and search over stored samples, the conversation from a
trajectory with tool calls and results, and HTML in which model text stays text."""
from __future__ import annotations

from unit.test_inspector_data import AGENT_STEPS, sample  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from evalui.viewer import inspector_data as data


def test_model_text_is_escaped_in_the_html():
    hostile = sample("<x>", "<g>", correct=False, verdict={"error": "<script>alert(1)</script>"},
                     prediction='<img src=x onerror="alert(1)">', trajectory=AGENT_STEPS)
    page = data.detail_html(data.detail("toy", hostile), '<run">')
    for raw in ("<img", "<script", "<b>bold", "<x>", "<g>", 'run">'):
        assert raw not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page and "&lt;b&gt;bold&lt;/b&gt;" in page
