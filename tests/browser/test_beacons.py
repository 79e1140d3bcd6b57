"""Text that a model, a reviewer or an uploaded file wrote makes the browser fetch nothing: Markdown
images, links and <img> tags pointing at a real HTTP server the test starts are shown as text in
the BFCL tab (table, turns view, inspector), the GAIA tab (inspector, transcript), the AIME
generation view, the Score tab and the review view, and the server counts no request. Every page
also carries a Content-Security-Policy that allows images only from the dashboard itself."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from aime_script import SCENARIOS
from peers import settings_for

from browser.pages import attach, choose
from browser.verify_steps import DIMENSIONS, score
from evalui.benchmarks.aime.options import GenerateOptions
from evalui.benchmarks.aime.spec import GENERATION
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
from evalui.benchmarks.gaia.spec import GaiaOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.browser


@pytest.fixture()
def beacon():
    """A real HTTP server that records every request: any hit is the browser fetching what a model wrote."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/gif")
            self.end_headers()
            self.wfile.write(b"GIF89a")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    yield {"base": base, "hits": hits,
           "text": f"![m]({base}/md-image) <img src=\"{base}/html-image\"> [l]({base}/md-link) {base}/bare"}
    server.shutdown()
    server.server_close()


def hostile_script(text: str):
    def script(body, n):
        system = str(body["messages"][0].get("content", ""))
        if "original competition mathematics problems" in system:
            problem = f"{SCENARIOS[n % len(SCENARIOS)]} {text}: find $\\frac{{1}}{{{n + 2}}}$ of the count."
            return completion(json.dumps({"problem": problem, "answer": n % 1000, "solution": f"{text} so",
                                          "topic": "algebra"}))
        if body.get("tools") and body["messages"][-1].get("role") != "tool":
            return completion(None, [(text, json.dumps({"x": text}))])  # a call named with the beacon
        return completion(f"{text}\nFINAL ANSWER: {text}")
    return script


@pytest.fixture()
def hostile_runs(tmp_path, monkeypatch, beacon):
    """A BFCL run (single- and multi-turn, FC), a GAIA run and an AIME generation whose model wrote the beacon."""
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    store = RunStore()
    with ScriptedPeer(hostile_script(beacon["text"])) as peer:
        settings = settings_for(peer, max_retries=0)
        for benchmark, options, exp_id in (
            (BFCL, BfclOptions(categories=["simple_python", "multi_turn_base"], limit=1, mode="fc"), "hostile-bfcl"),
            (GAIA, GaiaOptions(source="sample", limit=1), "hostile-gaia"),
            (GENERATION, GenerateOptions(n=1, reference_source="bundled", topics=["algebra"]), "hostile-aime"),
        ):
            lifecycle.execute(store, lifecycle.prepare(store, benchmark, options, settings, exp_id=exp_id), settings)
    store.close()


def assert_nothing_fetched(page, beacon) -> None:
    port = beacon["base"].rsplit(":", 1)[1]
    page.wait_for_timeout(500)  # a fetch the page started would have reached the server by now
    assert beacon["hits"] == [], beacon["hits"]
    assert page.locator(f'img[src*=":{port}"]').count() == 0
    assert page.locator(f'a[href*=":{port}"]').count() == 0


def test_model_text_fetches_nothing_in_the_launcher_tabs(browser, launch_app, hostile_runs, beacon):
    page = browser.new_page()
    response = page.goto(launch_app({}))
    assert response.headers["content-security-policy"] == "img-src 'self' data: blob:"
    assert response.headers["referrer-policy"] == "same-origin"

    choose(page, "bfcl-runs", re.compile("^hostile-bfcl"))
    page.locator("#bfcl-inspector-detail").filter(has_text="md-image").wait_for(timeout=30_000)
    page.locator("#bfcl-accuracy-plot .js-plotly-plot").wait_for(timeout=30_000)  # plotly still draws under the CSP
    # The multi-turn sample, turn by turn in the viewer (the run page's one view of a sample since #38).
    page.locator('#bfcl-viewer-list tr[data-id="multi_turn_base_0"]').click()
    page.locator('#bfcl-inspector-detail [data-sample="multi_turn_base_0"]').filter(
        has_text=f"![m]({beacon['base']}/md-image)").first.wait_for(timeout=30_000)
    assert_nothing_fetched(page, beacon)

    page.get_by_role("tab", name="GAIA").click()
    choose(page, "gaia-runs", re.compile("^hostile-gaia"))
    page.locator("#gaia-inspector-detail").filter(has_text="md-image").wait_for(timeout=30_000)  # the task's transcript
    assert_nothing_fetched(page, beacon)

    page.get_by_role("tab", name="AIME generation").click()
    choose(page, "aime-runs", re.compile("^hostile-aime"))
    problems = page.locator("#aime-problems")
    problems.filter(has_text=f"![m]({beacon['base']}/md-image)").wait_for(timeout=30_000)
    problems.locator(".katex").first.wait_for(timeout=30_000)  # LaTeX still renders
    assert_nothing_fetched(page, beacon)


def test_uploaded_fields_and_reviewer_text_fetch_nothing(browser, launch_app, beacon, tmp_path):
    text = beacon["text"]
    metadata = tmp_path / "metadata.jsonl"
    metadata.write_text(json.dumps({"task_id": "t1", "Question": "q", "Final answer": "1", "Level": text}) + "\n")
    submission = tmp_path / "submission.jsonl"
    submission.write_text(json.dumps({"task_id": "t1", "model_answer": text}) + "\n")
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    (folder / "aime_generated_20260101_000000.json").write_text(json.dumps(
        [{"problem_id": "gen-0", "problem": f"{text} find $\\frac{{1}}{{2}}$", "answer": 1, "solution": text,
          "topic": "algebra"}]))
    page = browser.new_page()
    page.goto(launch_app({}))

    page.get_by_role("tab", name="Score files").click()
    attach(page, "score-gaia-submission", submission)
    attach(page, "score-gaia-metadata", metadata)
    page.locator("#score-gaia-button").click()
    page.locator("#score-figures").filter(has_text=f"![m]({beacon['base']}/md-image)").wait_for(timeout=60_000)
    page.locator("#score-table").filter(has_text="md-image").wait_for(timeout=30_000)
    assert_nothing_fetched(page, beacon)

    page.get_by_role("tab", name="Verification").click()
    choose(page, "verify-file", "gen/aime_generated_20260101_000000.json")
    page.locator("#verify-problem").filter(has_text="md-image").wait_for(timeout=30_000)
    page.locator("#verify-reviewer").get_by_role("textbox").fill(f"![m]({beacon['base']}/reviewer)")
    page.locator("#verify-comments").get_by_role("textbox").fill(text)
    score(page, dict.fromkeys(DIMENSIONS, 4))
    page.locator("#verify-status").get_by_text("approved").click()
    page.locator("#verify-save").click()
    page.locator("#verify-others").filter(has_text=f"![m]({beacon['base']}/reviewer)").wait_for(timeout=30_000)
    page.locator("#verify-others").filter(has_text="md-link").wait_for(timeout=30_000)
    page.locator("#verify-where").filter(has_text="reviewed by").wait_for(timeout=30_000)
    assert_nothing_fetched(page, beacon)
