"""The dashboard's Gradio queue polls at evalui's intervals once launched, whatever queue() it was given."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from app_client import launch_demo

from evalui.ui.web import gradio_queue


def test_gradio_still_names_the_intervals_so():
    import gradio as gr

    with gr.Blocks() as bare:
        gr.Markdown("x")
    fresh = vars(bare._queue)
    # Gradio's defaults on Linux; if they change, the reason given in gradio_queue may no longer hold.
    assert fresh["sleep_when_free"] == 0.001 and fresh["progress_update_sleep_when_free"] == 0.01


def voluntary_switches() -> int:
    """This process's threads' voluntary context switches: one per wake-up from a sleep."""
    total = 0
    for status in Path("/proc/self/task").glob("*/status"):
        try:
            lines = status.read_text().splitlines()
        except OSError:  # a thread that ended meanwhile
            continue
        total += sum(int(line.split()[1]) for line in lines if line.startswith("voluntary_ctxt_switches"))
    return total


@pytest.mark.parametrize("idle_poll_s, most", [(gradio_queue.IDLE_POLL_S, 300), (0.001, None)])
def test_an_idle_launched_dashboard_does_not_poll_every_millisecond(monkeypatch, tmp_path, idle_poll_s, most):
    """Counted in wake-ups over a second rather than CPU seconds (these machines are shared).
    Gradio's own 1 ms interval is measured too, so the count is known to see the polling."""
    monkeypatch.setattr(gradio_queue, "IDLE_POLL_S", idle_poll_s)
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    import app

    demo = app.build_demo()
    demo.queue(default_concurrency_limit=4)  # as app.main does: a new queue, after the build
    launch_demo(demo)
    try:
        assert demo._queue.sleep_when_free == idle_poll_s
        assert demo._queue.progress_update_sleep_when_free == gradio_queue.PROGRESS_POLL_S
        time.sleep(0.5)
        before = voluntary_switches()
        time.sleep(1.0)
        woken = voluntary_switches() - before
    finally:
        demo.close()
    if most is not None:
        assert woken < most, woken
    else:
        assert woken > 400, woken  # Gradio's default: near a thousand when the machine is quiet
