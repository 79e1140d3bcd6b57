"""A second toy benchmark (tests/toy_benchmark/products.py: a target, a cluster rule, its own rendering of
an answer, the question as it states it and a task-free scorer), added by one registry line, goes
through everything evalui does with a stored run: the CLI run and its summary, ``evalui rescore``,
``evalui scan``, ``evalui export inspect`` and the viewer. One run against a scripted endpoint, made
once for the module by ``python -m evalui``; each test reads it as a user would."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from toy_benchmark.products import (
    BENCHMARK,
    SCORER_VERSION,
    ProductOptions,
    cluster_of,
    question,
    render_prediction,
    samples,
)

from support.openai_peer import ScriptedPeer, completion

TESTS = Path(__file__).resolve().parents[1]
REGISTRY_LINE = {"EVALUI_BENCHMARKS": "products=toy_benchmark.products:BENCHMARK"}
OPTIONS = ProductOptions(n=16, seed=3, hinted=1)
SPECS = samples(OPTIONS)
REFUSED = SPECS[6][0]  # 4x21-6: the endpoint declines it
HINTED = SPECS[0][0]  # 2x13-0: its question states its answer
REFUSAL = "I'm sorry, but I can't help with that."
EXP = "products-1"


def endpoint_reply(payload: dict, refused: set[str]) -> str:
    """How the scripted endpoint answers: right, except every product by 3 (one more than the product)
    and the questions in ``refused``."""
    asked = question(payload)
    if asked in refused:
        return REFUSAL
    a, b = payload["a"], payload["b"]
    return f"{a} × {b} = {a * b + 1 if a == 3 else a * b}"


def answering_for(specs, refused_ids=(REFUSED,)):
    """The peer's script for these samples: it knows each question's numbers, and declines ``refused_ids``."""
    by_question = {question(p): p for _, _, p in specs}
    refused = {question(p) for sid, _, p in specs if sid in refused_ids}

    def answering(body, n):
        asked = body["messages"][-1]["content"]
        payload = by_question.get(asked)
        return completion(endpoint_reply(payload, refused) if payload else "OK")

    return answering


def passes(sample_id: str, payload: dict) -> bool:
    return payload["a"] != 3 and sample_id != REFUSED


def environment(data: Path) -> dict:
    return {**os.environ, **REGISTRY_LINE, "EVALUI_DATA_DIR": str(data),
            "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def evalui(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalui", *args], env=env, capture_output=True, text=True,
                          timeout=300)


def last_json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@dataclass
class StoredRun:
    data: Path
    env: dict
    printed: dict  # the run command's JSON line
    summary: dict  # the summary.json it wrote


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> StoredRun:
    data = tmp_path_factory.mktemp("products") / "data"
    env = environment(data)
    with ScriptedPeer(answering_for(SPECS)) as peer:
        printed = last_json(evalui(env, "products", "run", "--n", str(OPTIONS.n), "--seed", str(OPTIONS.seed),
                                   "--hinted", str(OPTIONS.hinted), "--base-url", peer.base_url, "--model", "m",
                                   "--exp-id", EXP))
        asked = [r.body["messages"] for r in peer.chat_requests()]
    assert len(asked) == OPTIONS.n  # one call per sample, each with the benchmark's system prompt first
    assert all(m[0]["role"] == "system" and m[-1]["role"] == "user" for m in asked)
    summary = json.loads((Path(printed["out_dir"]) / "summary.json").read_text())
    return StoredRun(data, env, printed, summary)


@pytest.fixture()
def store(run, monkeypatch):
    from evalui.store.run_store import RunStore

    monkeypatch.setenv("EVALUI_DATA_DIR", str(run.data))
    for key, value in REGISTRY_LINE.items():
        monkeypatch.setenv(key, value)
    opened = RunStore()
    yield opened
    opened.close()


def outcomes() -> list[tuple[str, bool]]:
    return [(sid, passes(sid, payload)) for sid, _, payload in SPECS]


def test_the_cli_runs_the_toy_and_counts_what_the_endpoint_got_right(run):
    right = sum(ok for _, ok in outcomes())
    assert right == 11  # 4 products by 3 are wrong, and one is declined
    assert run.printed["total"] == OPTIONS.n and run.printed["correct"] == right
    assert run.printed["accuracy"] == pytest.approx(right / OPTIONS.n)
    assert run.printed["headline"] == {"label": "accuracy", "value": pytest.approx(right / OPTIONS.n)}
    groups = {group for _, group, _ in SPECS}
    assert set(run.summary["by_size"]) == groups == {"small", "large"}
    for group in groups:
        mine = [passes(sid, p) for sid, g, p in SPECS if g == group]
        assert run.summary["by_size"][group]["successes"] == sum(mine)
        assert run.summary["by_size"][group]["total"] == len(mine)


def test_the_summary_interval_is_clustered_by_the_toys_rule(run):
    from evalui.stats.clustered import clustered_accuracy, sample_outcomes
    from evalui.stats.metrics import wilson

    by_rule = clustered_accuracy(sample_outcomes(outcomes(), cluster_of))
    assert by_rule.clusters == len({cluster_of(sid) for sid, _, _ in SPECS}) == 4
    plain = wilson(by_rule.successes, by_rule.total)
    assert by_rule.high - by_rule.low > plain.high - plain.low  # the rule matters: every product by 3 is wrong
    assert run.summary["clusters"] == 4
    assert run.summary["ci95"] == [pytest.approx(by_rule.low), pytest.approx(by_rule.high)]
    assert run.summary["ci95_method"] == by_rule.method


def test_the_valid_sample_interval_is_clustered_by_the_toys_rule(run):
    from evalui.stats.clustered import clustered_accuracy, sample_outcomes

    validity = run.summary["validity"]
    records = [json.loads(line) for line in (Path(run.printed["out_dir"]) / "samples.jsonl").read_text().splitlines()]
    invalid = {r["id"] for r in records if any(f["severity"] == "invalid" for f in r["findings"])}
    valid = [(sid, ok) for sid, ok in outcomes() if sid not in invalid]
    assert validity["valid"] == len(valid) and validity["invalid"] == len(invalid)
    by_rule = clustered_accuracy(sample_outcomes(valid, cluster_of))
    assert validity["valid_ci95"] == [pytest.approx(by_rule.low), pytest.approx(by_rule.high)]


def test_rescore_from_the_cli_changes_no_verdict(run):
    done = evalui(run.env, "rescore", EXP)
    rescored = last_json(done)
    assert rescored["scorer"] == "product" and rescored["scorer_version"] == SCORER_VERSION
    assert rescored["rescored"] == OPTIONS.n and rescored["changed"] == 0 and rescored["flipped"] == []
    assert rescored["accuracy"] == pytest.approx(run.printed["accuracy"])
    assert f"{OPTIONS.n} samples judged again by product ({SCORER_VERSION}); 0 changed" in done.stdout


def test_rescore_in_process_judges_with_the_scorer_alone(run, store):
    from evalui.ops.rescore import rescore
    from support.tripwires import no_task_built

    right = next(s for s in store.samples(EXP) if s.sample_id == "5x10-3")
    assert right.correct and right.prediction == 50
    # A verdict damaged by hand: the scorer, judging the stored reply again, puts it right.
    store.record_judgement(EXP, right.sample_id, prediction=None, correct=False, verdict={"error_type": "planted"})
    with no_task_built(BENCHMARK):
        done = rescore(store, EXP)
    assert done["changed"] == 1
    assert done["flipped"] == [{"id": "5x10-3", "group": "large", "before": False, "after": True, "error_type": None}]
    after = {s.sample_id: s for s in store.samples(EXP)}
    assert after["5x10-3"].correct and after["5x10-3"].prediction == 50
    assert {s.verdict["scorer"] for s in after.values()} == {"product"}
    assert {s.verdict["scorer_version"] for s in after.values()} == {SCORER_VERSION}
    assert after["3x24-1"].verdict["error_type"] == "wrong_product" and after[REFUSED].verdict["error_type"] == "no_number"


def test_scan_finds_the_declined_item_and_changes_nothing(run):
    done = evalui(run.env, "scan", EXP)
    scanned = last_json(done)
    assert scanned["samples"] == OPTIONS.n and scanned["changed"] == []  # the run's own scan found the same
    refusals = [f for f in scanned["findings"] if f["scanner"] == "refusal"]
    assert [(f["id"], f["severity"]) for f in refusals] == [(REFUSED, "warning")]
    assert f"{REFUSED}" in done.stdout and "refusal (warning)" in done.stdout


def test_scan_flags_the_item_whose_question_states_its_target(run):
    scanned = last_json(evalui(run.env, "scan", EXP, "--scanner", "answer_in_context"))
    leaks = [(f["id"], f["severity"]) for f in scanned["findings"] if f["scanner"] == "answer_in_context"]
    assert leaks == [(HINTED, "invalid")]
    assert scanned["validity"]["invalid"] == 1


def test_the_inspect_log_holds_the_toys_targets_and_questions(run, tmp_path):
    from inspect_ai.log import read_eval_log

    out = tmp_path / "products.eval"
    exported = last_json(evalui(run.env, "export", "inspect", EXP, "--out", str(out)))
    assert exported["samples"] == OPTIONS.n and Path(exported["out"]) == out
    log = read_eval_log(str(out))
    assert log.eval.task == "products" and log.eval.dataset.name == "Toy products"
    by_id = {str(s.id): s for s in log.samples}
    assert set(by_id) == {sid for sid, _, _ in SPECS}
    for sid, _, payload in SPECS:
        sample = by_id[sid]
        assert sample.target == str(payload["a"] * payload["b"])  # the Target's value, not its shown form
        assert sample.input == question(payload)  # the question as the toy states it, not its system prompt
        assert sample.scores["products"].value == ("C" if passes(sid, payload) else "I")
    assert "(The answer is 26.)" in by_id[HINTED].input


def test_the_viewer_shows_the_gold_answer_and_the_rendered_answer(run, store):
    from evalui.viewer import data

    def shown(pane: str, role: str) -> str:
        found = re.search(rf'<pre class="evalui-inspector-text" data-role="{role}">(.*?)</pre>', pane, re.DOTALL)
        assert found, f"no {role} in the pane"
        return html.unescape(found.group(1))

    wrong, _ = data.pane(store, EXP, "3x24-1")
    assert shown(wrong, "gold") == "3 × 24 = 72" and shown(wrong, "answer") == "= 73"
    declined, _ = data.pane(store, EXP, REFUSED)
    assert shown(declined, "gold") == "4 × 21 = 84" and shown(declined, "answer") == render_prediction(None)
    assert REFUSAL.replace("'", "&#x27;") in declined  # the reply itself, in the transcript
    right, _ = data.pane(store, EXP, "5x10-3")
    assert shown(right, "gold") == "5 × 10 = 50" and shown(right, "answer") == "= 50"
    assert 'data-verdict="correct"' in right and 'data-verdict="wrong"' in wrong
