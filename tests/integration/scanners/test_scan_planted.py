"""The validity scanners on real runs against a scripted endpoint that plants each kind of invalid
or suspicious sample (and look-alikes that are neither): the scanners flag exactly those samples,
the valid-sample score matches a hand count, `evalui scan` finds the same offline, and the gate,
`evalui compare` and the report show the valid figures beside the raw ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from peers import settings_for

from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
from evalui.benchmarks.gaia.spec import GaiaOptions
from evalui.run import lifecycle
from support.openai_peer import ScriptedPeer
from support.scanner_plants import KINDS, MAX_STEPS, Case, OtherModel, PlantedModel, cases_for, write_questions


def evalui(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalui", *args], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ))


def labels(findings: list[dict] | None) -> dict[str, str]:
    return {f["scanner"]: f["severity"] for f in findings or []}


def planted_cases() -> list[Case]:
    cases = cases_for(list(KINDS), seed=7)
    hard = cases_for(["wrong"], seed=8, prefix="hard")[0]
    hard.expected = {"unsolvable": "warning"}  # failed here and by every other model
    return cases + [hard]


def run_gaia(store, cases: list[Case], questions: Path, script, model: str, exp_id: str) -> dict:
    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, model=model, max_retries=0)
        options = GaiaOptions(source=f"questions:{questions}", tools=["python", "files"], max_steps=MAX_STEPS,
                              tool_timeout=60)
        prepared = lifecycle.prepare(store, GAIA, options, settings, exp_id=exp_id, concurrency=2)
        return lifecycle.execute(store, prepared, settings)


def test_planted_samples_are_flagged_exactly_and_scan_finds_the_same_offline(store, tmp_path):
    cases = planted_cases()
    questions = write_questions(tmp_path, cases)
    hard = {c.task_id for c in cases if c.task_id.startswith("hard")}
    for number in (1, 2, 3):  # three other models, right on everything but the hard item
        run_gaia(store, cases, questions, OtherModel(cases, hard), f"other-model-{number}", f"other-{number}")
    summary = run_gaia(store, cases, questions, PlantedModel(cases), "planted-model", "planted")

    # Every planted sample has exactly its findings, in the store and in samples.jsonl.
    exported = {r["id"]: r for r in map(json.loads, (Path(summary["out_dir"]) / "samples.jsonl").read_text().splitlines())}
    stored = {s.sample_id: s for s in store.samples("planted")}
    for case in cases:
        assert labels(exported[case.task_id]["findings"]) == case.expected, (case.kind, exported[case.task_id]["findings"])
        assert "findings" not in (exported[case.task_id].get("verdict") or {})
        if stored[case.task_id].stage == "judged":
            assert labels(stored[case.task_id].verdict["findings"]) == case.expected, case.kind
    for finding in (f for r in exported.values() for f in r["findings"]):
        assert set(finding) == {"scanner", "severity", "message", "step"} and finding["message"]

    # The hand count: 19 samples, one endpoint error (never judged), so 18 judged; seven right (right, leak,
    # tool_leak, repeat_success, bad_arguments_once, short_answer_in_question, tool_found). Invalid: the
    # endpoint error, the empty reply, the truncated reply, the leaked answer and the missing attachment:
    # five, four of them judged. Valid: 18 - 4 = 14 samples, of which 6 are right (the leak is left out;
    # tool_leak and tool_found, whose answers a tool returned, stay).
    assert summary["total"] == 19 and summary["judged"] == 18 and summary["correct"] == 7
    assert summary["accuracy"] == 7 / 18  # the raw score is untouched
    validity = summary["validity"]
    assert validity["invalid"] == 5 and validity["invalid_judged"] == 4
    assert validity["valid"] == 14 and validity["valid_correct"] == 6 and validity["valid_accuracy"] == 6 / 14
    low, high = validity["valid_ci95"]
    assert low < 6 / 14 < high
    assert validity["by_scanner"]["endpoint_error"] == {"invalid": 1}
    assert validity["by_scanner"]["answer_in_context"] == {"invalid": 1, "warning": 1}
    assert validity["by_scanner"]["unsolvable"] == {"warning": 1}
    assert set(validity["scanners"]) == {"endpoint_error", "refusal", "empty_reply", "truncated", "format_failure",
                                         "tool_error", "loop", "step_limit", "answer_in_context", "unsolvable"}
    written = json.loads((Path(summary["out_dir"]) / "summary.json").read_text())
    assert written["validity"] == validity and written["accuracy"] == summary["accuracy"]
    report = (Path(summary["out_dir"]) / "report.md").read_text()
    assert "## Validity" in report and "Valid-sample accuracy: **42.9%**" in report

    # Offline: the same findings, nothing changed, no model call (no endpoint is running now).
    store.close()
    done = evalui("scan", "planted")
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["changed"] == [] and result["validity"] == validity
    offline = {}
    for item in result["findings"]:
        offline.setdefault(item["id"], {})[item["scanner"]] = item["severity"]
    assert offline == {c.task_id: c.expected for c in cases if c.expected}
    again = json.loads((Path(summary["out_dir"]) / "samples.jsonl").read_text().splitlines()[0])
    assert again["findings"] == exported[again["id"]]["findings"]

    only = evalui("scan", "planted", "--scanner", "refusal")
    assert only.returncode == 0, only.stderr[-3000:]
    refusals = json.loads(only.stdout.splitlines()[-1])
    assert {f["id"] for f in refusals["findings"]} == {c.task_id for c in cases if c.kind == "refusal"}
    assert set(refusals["scanners"]) == {"refusal"} and refusals["changed"] == []
    unknown = evalui("scan", "planted", "--scanner", "no_such_scanner")
    assert unknown.returncode == 2 and "unknown scanner 'no_such_scanner'" in unknown.stderr


def test_the_gate_and_compare_show_the_valid_score_beside_the_raw_one(store, tmp_path):
    from evalui.cli.gate import Gate
    from evalui.reports.comparison import compare_runs, comparison_markdown

    cases = planted_cases()
    questions = write_questions(tmp_path, cases)
    run_gaia(store, cases, questions, OtherModel(cases, set()), "other-model", "baseline")
    summary = run_gaia(store, cases, questions, PlantedModel(cases), "planted-model", "planted")

    # Raw, errors count as failures: 7 of 19 = 0.368; valid: 6 of 14 = 0.429. Judged at the point
    # (an interval over 14 samples spans any threshold in between).
    raw = Gate(fail_under=0.4, on_inconclusive="point")
    raw_record = raw.check(summary)
    assert raw.failed and raw_record["figures"]["accuracy"] == 7 / 19 and raw_record["figures"]["gate_on"] == "raw"
    valid = Gate(fail_under=0.4, on_inconclusive="point", gate_on="valid")
    valid_record = valid.check(summary)
    assert not valid.failed and valid_record["outcome"] == "passed"
    assert valid_record["figures"]["accuracy"] == 6 / 14 and valid_record["figures"]["considered"] == 14

    record = compare_runs(store, "baseline", "planted")
    assert record["n"] == 19 and record["valid"]["n"] == 14 and record["valid"]["invalid_pairs"] == 5
    assert record["valid"]["b_accuracy"] == 6 / 14 and record["b_accuracy"] == 7 / 19
    assert "Valid samples only (14 pairs, 5 left out as invalid)" in comparison_markdown(record)
