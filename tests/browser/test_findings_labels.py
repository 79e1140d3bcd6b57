"""Findings in real Chromium: a GAIA run against a scripted model that plants a refusal, an empty reply
and an endpoint error shows its valid-sample score beside the raw one (status line and Runs table),
the inspector lists and filters the findings, a named reviewer labels one "false alarm" and one
"confirmed", each scanner's precision follows, the labels survive a reload and an `evalui scan`, and
the re-exported summary.json has the precision under validity."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from peers import settings_for
from playwright.sync_api import expect

from browser.pages import choose
from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
from evalui.benchmarks.gaia.spec import GaiaOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer
from support.scanner_plants import MAX_STEPS, PlantedModel, cases_for, write_questions

pytestmark = pytest.mark.browser

KINDS = ["right", "wrong", "refusal", "empty", "endpoint_error"]


@pytest.fixture()
def planted_run(tmp_path, monkeypatch):
    """The run 'planted' (5 samples) and its cases by kind."""
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    cases = cases_for(KINDS, seed=11)
    questions = write_questions(tmp_path, cases)
    store = RunStore()
    with ScriptedPeer(PlantedModel(cases)) as peer:
        settings = settings_for(peer, model="planted-model", max_retries=0)
        options = GaiaOptions(source=f"questions:{questions}", tools=["python", "files"], max_steps=MAX_STEPS,
                              tool_timeout=60)
        prepared = lifecycle.prepare(store, GAIA, options, settings, exp_id="planted", concurrency=2)
        summary = lifecycle.execute(store, prepared, settings)
    store.close()
    return summary, {c.kind: c.task_id for c in cases}


def percent(value: float) -> str:
    return f"{value:.1%}"


def open_run(page, url: str) -> None:
    page.goto(url)
    page.get_by_role("tab", name="Runs").click()
    choose(page, "runs-runs", re.compile("^planted"))
    page.locator("#runs-inspector").get_by_text("Sample inspector").click()
    page.locator("#runs-inspector-detail .evalui-inspector").wait_for(timeout=30_000)


def test_findings_are_shown_filtered_labelled_and_counted(browser, launch_app, planted_run):
    summary, ids = planted_run
    # The hand count: 5 samples, the endpoint error never judged; right is the one correct answer.
    # Invalid: the empty reply and the endpoint error; valid: right, wrong, refusal (1 of 3).
    validity = summary["validity"]
    assert summary["judged"] == 4 and summary["accuracy"] == 1 / 4
    assert validity["invalid"] == 2 and validity["valid"] == 3 and validity["valid_accuracy"] == 1 / 3
    assert validity["label_precision"] == {}
    url = launch_app({})
    page = browser.new_page()
    open_run(page, url)

    # Beside the raw score, never in its place: the status line and the Runs table.
    low, high = summary["ci95"]
    valid_low, valid_high = validity["valid_ci95"]
    expected = (f"accuracy {percent(1 / 4)} [{percent(low)}–{percent(high)}] · valid samples {percent(1 / 3)} "
                f"[{percent(valid_low)}–{percent(valid_high)}] (2 invalid)")
    page.locator("#runs-status").filter(has_text=expected).wait_for(timeout=30_000)
    table = page.locator("#runs-table")
    table.filter(has_text="valid samples").wait_for(timeout=30_000)
    assert f"{percent(1 / 3)} [{percent(valid_low)}–{percent(valid_high)}] (2 invalid)" in table.inner_text()

    # Filter by finding: "any invalid" leaves the empty reply and the endpoint error.
    choose(page, "runs-inspector-finding", "any invalid")
    page.locator(f'#runs-inspector-detail [data-sample="{ids["empty"]}"]').wait_for(timeout=30_000)
    expect(page.locator("#runs-inspector-position")).to_contain_text("1 / 2", timeout=30_000)
    row = page.locator("#runs-inspector-detail tr.evalui-finding").first
    assert row.get_attribute("data-scanner") == "empty_reply" and row.get_attribute("data-severity") == "invalid"
    page.locator("#runs-inspector-next").click()
    page.locator(f'#runs-inspector-detail [data-sample="{ids["endpoint_error"]}"]').wait_for(timeout=30_000)
    assert page.locator('#runs-inspector-detail tr.evalui-finding[data-scanner="endpoint_error"]').count() == 1
    assert "no finding of this run is labelled" in page.locator("#runs-inspector-precision").inner_text()

    # A label needs a reviewer's name: without one nothing is saved.
    choose(page, "runs-inspector-finding", "refusal")
    page.locator(f'#runs-inspector-detail [data-sample="{ids["refusal"]}"]').wait_for(timeout=30_000)
    page.locator("#runs-inspector-false-alarm").click()
    page.get_by_text("needs a name").first.wait_for(timeout=30_000)
    assert not (Path(summary["out_dir"]) / "finding_labels.json").exists()

    page.locator("#runs-inspector-reviewer textarea, #runs-inspector-reviewer input").first.fill("Ada Reviewer")
    page.locator("#runs-inspector-false-alarm").click()
    precision = page.locator("#runs-inspector-precision")
    precision.filter(has_text="refusal 0% (0 confirmed, 1 false alarm)").wait_for(timeout=30_000)
    page.locator('#runs-inspector-detail tr.evalui-finding[data-scanner="refusal"][data-label="false_alarm"]') \
        .wait_for(timeout=30_000)

    choose(page, "runs-inspector-finding", "empty_reply")
    page.locator(f'#runs-inspector-detail [data-sample="{ids["empty"]}"]').wait_for(timeout=30_000)
    page.locator("#runs-inspector-confirmed").click()
    precision.filter(has_text="empty_reply 100% (1 confirmed, 0 false alarm)").wait_for(timeout=30_000)
    assert "refusal 0%" in precision.inner_text()

    # The labels are durable: a reload shows them again.
    page.reload()
    open_run(page, url)
    precision.filter(has_text="empty_reply 100% (1 confirmed, 0 false alarm)").wait_for(timeout=30_000)
    assert "refusal 0% (0 confirmed, 1 false alarm)" in precision.inner_text()
    choose(page, "runs-inspector-finding", "refusal")
    labelled = page.locator('#runs-inspector-detail tr.evalui-finding[data-scanner="refusal"]')
    labelled.first.wait_for(timeout=30_000)
    assert labelled.first.get_attribute("data-label") == "false_alarm" and "Ada Reviewer" in labelled.first.inner_text()

    # `evalui scan` finds the same findings again: the labels stay and summary.json reports the precision.
    from evalui.ops.scan import scan_run

    store = RunStore()
    try:
        done = scan_run(store, "planted")
    finally:
        store.close()
    expected_precision = {"empty_reply": {"confirmed": 1, "false_alarm": 0, "precision": 1.0},
                          "refusal": {"confirmed": 0, "false_alarm": 1, "precision": 0.0}}
    assert done["changed"] == [] and done["validity"]["label_precision"] == expected_precision
    written = json.loads((Path(summary["out_dir"]) / "summary.json").read_text())
    assert written["validity"]["label_precision"] == expected_precision
    assert written["accuracy"] == 1 / 4 and written["validity"]["valid_accuracy"] == 1 / 3
