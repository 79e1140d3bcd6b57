"""Text a model, a reviewer or an uploaded file wrote is shown as text wherever evalui writes
Markdown: no HTML, no image a browser would fetch, no link. Rendered with a CommonMark renderer
(as GitHub and editors render report.md); the page itself is checked in tests/browser/test_beacons.py."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from unit.ui.test_render_safety import BEACON, assert_inert, markdown_it, rendered  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from support.openai_peer import ScriptedPeer, completion


@pytest.fixture()
def hostile_level_run(tmp_path):
    """A GAIA run through the evalui command, from a questions file whose Level is hostile."""
    level = f'1<img src="{BEACON}"> ![m]({BEACON})'
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([{"task_id": "t1", "Question": "What is 1?", "Final answer": "1", "Level": level},
                                     {"task_id": "t2", "Question": "What is 2?", "Final answer": "2", "Level": "2"}]))
    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1", "EVALUI_ALLOWED_USERS": ""}
    with ScriptedPeer(lambda body, n: completion("FINAL ANSWER: 1")) as peer:
        done = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--questions", str(questions),
                               "--base-url", peer.base_url, "--model", "m", "--exp-id", "hostile-level"],
                              env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return tmp_path / "data" / "runs" / "hostile-level" / "report.md", level


def test_report_md_escapes_a_hostile_level(hostile_level_run):
    report, level = hostile_level_run
    text = report.read_text()
    assert level not in text and "<img" not in text and f"]({BEACON})" not in text
    assert "&lt;img" in text  # shown, as text
    assert str(report.parents[3]) not in text  # the questions file is named, not where the server keeps it
    assert_inert(rendered(text))
