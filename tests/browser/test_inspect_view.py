"""Inspect View, served by `inspect view` on 127.0.0.1, opens evalui's Inspect export of a GAIA run in
Debian Chromium: each sample is listed by its question, and a sample opens on its Transcript, which
shows the run (the model calls, the tool call and its result, the score)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import urllib.request

import pytest
from inspect_runs import QUESTIONS, run_gaia
from playwright.sync_api import expect
from waiting import wait_for

from evalui.export.inspect_log import export_inspect

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serving(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status == 200
    except OSError:
        return False


@pytest.fixture()
def inspect_view(tmp_path):
    """Start `inspect view` on a log folder; returns (folder, url). Stopped after the test."""
    logs, port = tmp_path / "logs", _free_port()
    logs.mkdir()
    output = open(tmp_path / "inspect-view.log", "w")
    process = subprocess.Popen([sys.executable, "-m", "inspect_ai", "view", "--log-dir", str(logs), "--host",
                                "127.0.0.1", "--port", str(port)], stdout=output, stderr=subprocess.STDOUT)
    try:
        yield logs, f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        output.close()


def test_inspect_view_shows_an_exported_gaia_run_on_its_transcript(browser, store, tmp_path, inspect_view):
    logs, url = inspect_view
    run_gaia(store, tmp_path, "gaia-view")
    export_inspect(store, "gaia-view", logs / "gaia-view.eval")
    wait_for(lambda: _serving(f"{url}/api/logs"), "inspect view serves the log folder")

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/#/tasks/gaia-view.eval")
    # Each sample is listed by its own question, not by GAIA's system prompt, which they all share.
    for question in QUESTIONS:
        page.get_by_text(question["Question"], exact=True).first.wait_for()
    assert page.get_by_text(re.compile("You are a general AI assistant")).count() == 0

    page.get_by_text("What is six times seven? Use python.", exact=True).first.click()
    transcript = page.get_by_role("tab", name=re.compile("^transcript$", re.I))
    transcript.wait_for()
    expect(transcript).to_have_attribute("aria-selected", "true", timeout=30_000)  # the tab a sample opens on
    # The two model calls, the tool call between them with its result, and the score.
    page.get_by_text(re.compile(r"model call: openai-api/local/scripted-model", re.I)).first.wait_for()
    expect(page.get_by_text(re.compile(r"model call", re.I))).to_have_count(2, timeout=30_000)  # the second drawn a moment later
    page.get_by_text("The program printed it.", exact=False).first.wait_for(state="visible")
    page.get_by_text("print(6 * 7)").first.wait_for(state="visible")
    page.get_by_text(re.compile(r"^exit code 0")).first.wait_for(state="visible")
    page.get_by_text(re.compile(r"^tool: python$", re.I)).first.wait_for(state="visible")
