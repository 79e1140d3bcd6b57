"""Hugging Face Space readiness: front matter, a torch-free requirements.txt, OAuth only on a Space,
launch options, and the optional allow-list."""
from __future__ import annotations

import re
from pathlib import Path

import gradio as gr

ROOT = Path(__file__).resolve().parents[3]


def front_matter() -> dict:
    text = (ROOT / "README.md").read_text()
    block = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL).group(1)
    return {k.strip(): v.strip().strip('"') for k, v in (line.split(":", 1) for line in block.splitlines())}


def test_front_matter_matches_the_pins():
    meta = front_matter()
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py" and meta["python_version"] == "3.11"
    assert meta["hf_oauth"] == "true"
    assert meta["sdk_version"] == gr.__version__
    assert f"gradio[oauth]=={meta['sdk_version']}" in (ROOT / "requirements.txt").read_text()
    assert f"gradio[oauth]=={meta['sdk_version']}" in (ROOT / "pyproject.toml").read_text()


def test_element_ids_are_unique(monkeypatch, tmp_path):
    """Browser tests and the keyboard shortcuts find elements by id; a repeated id finds the wrong one."""
    from collections import Counter

    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    import app

    ids = Counter(block.elem_id for block in app.build_demo().blocks.values() if getattr(block, "elem_id", None))
    assert {"verify-save", "verify-message", "score-figures", "score-summary"} <= set(ids)
    assert [i for i, n in ids.items() if n > 1] == []


def test_no_gradio_telemetry_and_the_queue_summarises_its_records_seldom(monkeypatch, tmp_path):
    """No usage data leaves for Gradio's servers, and the queue does not rebuild its pandas summary of
    up to 10,000 event records after every event (the tabs' timers send one a second per page)."""
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("GRADIO_ANALYTICS_CACHE_FREQUENCY", raising=False)
    monkeypatch.delenv("GRADIO_ANALYTICS_MAX_EVENTS", raising=False)
    import app

    demo = app.build_demo().queue()
    assert demo.analytics_enabled is False
    assert demo._queue.ANAYLTICS_CACHE_FREQUENCY >= 1000 and demo._queue.ANALYTICS_MAX_EVENTS <= 1000
    monkeypatch.setenv("GRADIO_ANALYTICS_CACHE_FREQUENCY", "7")  # an operator's own setting is kept
    assert app.build_demo().queue()._queue.ANAYLTICS_CACHE_FREQUENCY == 7
