"""Secrets and hostile model output, in a real browser against the app running as its own process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from urllib.request import urlopen

import pytest
from aime_script import SCENARIOS
from peers import SENTINEL_KEY
from waiting import wait_for

from support.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
IMG = '<img src=x onerror="window.__xss=1">'
SCRIPT = "<script>window.__xss=2</script>"


def hostile(body, n):
    system = str(body["messages"][0].get("content", ""))
    if "original competition mathematics problems" in system:
        problem = f"{SCENARIOS[n % len(SCENARIOS)]} {IMG} {SCRIPT}: find $\\frac{{1}}{{{n + 2}}}$ of the count."
        return completion(json.dumps({"problem": problem, "answer": n % 1000, "solution": f"{IMG} so",
                                      "topic": f"algebra {SCRIPT}"}))
    if body.get("tools"):
        name = body["tools"][0]["function"]["name"]
        return completion(None, [(name, json.dumps({"x": IMG}))])
    return completion(f"Thinking {SCRIPT}\nFINAL ANSWER: {IMG}{SCRIPT}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture()
def app_process(tmp_path):
    """The dashboard as users run it, with its output captured, and no key in its environment."""
    port = free_port()
    log = (tmp_path / "app.log").open("w")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HF_TOKEN")}
    env.update(EVALUI_DATA_DIR=str(tmp_path / "data"), HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    process = subprocess.Popen([sys.executable, "app.py", "--port", str(port)], cwd=ROOT, env=env, stdout=log,
                               stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"

    def up() -> bool:
        try:
            urlopen(url, timeout=1).close()
            return True
        except OSError:
            return process.poll() is not None  # it exited: said below, instead of waiting on

    try:
        wait_for(up, "app.py never answered")
        assert process.poll() is None, (tmp_path / "app.log").read_text()[-3000:]
        yield url, tmp_path
    finally:
        process.terminate()
        process.wait(30)
        log.close()


def fill_endpoint(page, base_url):
    page.locator("#bfcl-start").wait_for(timeout=60_000)
    box = page.locator("#endpoint-base-url").get_by_role("textbox")
    if not box.is_visible():  # the panel starts open when the server has no endpoint of its own
        page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
    page.locator("#endpoint-base-url").get_by_role("textbox").fill(base_url)
    page.locator("#endpoint-model").get_by_role("textbox").fill("hostile-model")
    page.locator("#endpoint-api-key").get_by_role("textbox").fill(SENTINEL_KEY)


def test_hostile_output_is_inert_and_the_typed_key_leaks_nowhere(browser, app_process):
    url, tmp_path = app_process
    with ScriptedPeer(hostile) as peer:
        page = browser.new_page()
        page.goto(url)
        fill_endpoint(page, peer.base_url)

        page.locator("#bfcl-limit input").fill("2")
        page.get_by_text("prompt", exact=True).click()
        page.locator("#bfcl-start").click()
        page.locator("#bfcl-status").filter(has_text="2/2 done").wait_for(timeout=120_000)
        page.locator("#bfcl-inspector-detail").filter(has_text="onerror").wait_for(timeout=30_000)  # the viewer's pane

        page.get_by_role("tab", name="GAIA").click()
        page.locator("#gaia-limit input").fill("2")
        page.locator("#gaia-start").click()
        page.locator("#gaia-status").filter(has_text="2/2 done").wait_for(timeout=120_000)
        page.locator("#gaia-inspector-detail").filter(has_text="<script>").wait_for(timeout=30_000)

        page.get_by_role("tab", name="AIME generation").click()
        page.locator("#aime-count input").fill("2")
        page.locator("#aime-references").get_by_text("Bundled sample", exact=True).click()
        page.locator("#aime-start").click()
        page.locator("#aime-status").filter(has_text="2/2 done").wait_for(timeout=120_000)
        page.locator("#aime-problems").filter(has_text="onerror").wait_for(timeout=30_000)
        page.locator("#aime-problems .katex").first.wait_for(timeout=30_000)

        assert page.evaluate("window.__xss") is None  # nothing the models wrote ran
        assert page.locator("img[onerror]").count() == 0
        assert SENTINEL_KEY not in page.content()
        # the key did reach the endpoint it was typed for
        assert {r.authorization for r in peer.chat_requests()} == {f"Bearer {SENTINEL_KEY}"}

    page.reload()
    assert SENTINEL_KEY not in page.content()
    assert SENTINEL_KEY not in json.dumps(page.evaluate("() => ({...localStorage, ...sessionStorage})"))
    artefacts = [p for p in (tmp_path / "data").rglob("*") if p.is_file()]
    assert any(p.name == "evalui.sqlite" for p in artefacts) and any(p.name == "report.md" for p in artefacts)
    for path in [*artefacts, tmp_path / "app.log"]:
        assert SENTINEL_KEY.encode() not in path.read_bytes(), path
    report = next(p for p in artefacts if p.name == "report.md" and "gaia" in str(p))
    assert "&lt;script&gt;" in report.read_text() and "<script>" not in report.read_text()


def test_hostile_problem_ids_reviewers_and_file_names_stay_inert_in_the_verification_panel(browser, launch_app,
                                                                                           tmp_path):
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    (folder / "aime_generated_20260101_000000.json").write_text(json.dumps(
        [{"problem_id": IMG, "problem": f"{SCRIPT} find $\\frac{{1}}{{2}}$", "answer": 1, "solution": IMG,
          "topic": SCRIPT}]))
    hostile_upload = tmp_path / f"{IMG}.json"
    hostile_upload.write_bytes(b"\x00\x01 not json")
    page = browser.new_page()
    page.goto(launch_app({}))
    page.get_by_role("tab", name="Verification").click()
    page.locator("#verify-file input").click()
    page.get_by_role("option", name="gen/aime_generated_20260101_000000.json").click()
    page.locator("#verify-where").filter(has_text="Problem 1 of 1").wait_for(timeout=30_000)
    page.locator("#verify-reviewer").get_by_role("textbox").fill(IMG)
    for dimension in ("correctness", "clarity", "difficulty_match", "completeness"):  # a review scores every one
        page.locator(f"#verify-{dimension}").get_by_label("4", exact=True).check()
    page.locator("#verify-status").get_by_text("approved").click()
    page.locator("#verify-save").click()
    page.locator("#verify-where").filter(has_text="reviewed by <img").wait_for(timeout=30_000)
    page.locator(".toast-body").filter(has_text="Saved <img").wait_for(timeout=10_000)  # shown as text

    page.locator("#verify-upload input[type=file]").set_input_files(str(hostile_upload))
    page.locator("#verify-message").filter(has_text="a binary file").wait_for(timeout=30_000)
    assert "<img" not in page.locator("#verify-message").inner_text()  # the stored name is sanitised
    page.locator("#verify-problem .katex").first.wait_for(timeout=30_000)
    assert page.evaluate("window.__xss") is None
    assert page.locator("img[onerror]").count() == 0
