"""A mixed BFCL run's leaderboard figures and CSVs equal those of the official ``bfcl evaluate`` run on
the run's own exported result files."""

from __future__ import annotations

import json
from pathlib import Path

from bfcl_official_cli import bfcl_evaluate, official_verdicts
from peers import settings_for

from evalui.benchmarks.bfcl.leaderboard_csv import CSV_FILES
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

CATEGORIES = ["simple_python", "multiple", "irrelevance", "live_simple", "live_irrelevance", "live_relevance"]
MODEL = "gpt-4o-2024-11-20-FC"  # registered in bfcl-eval, so `bfcl evaluate` reads its result folder


def test_overall_and_csvs_equal_the_official_tools(store, tmp_path):
    oracle = BfclOracle(CATEGORIES)

    def script(body, n):  # every third entry answered wrongly
        entry = oracle.entry_for(body)
        wrong = entry is not None and int(entry.id.rsplit("_", 1)[-1].split("-")[0]) % 3 == 0
        return oracle.wrong_reply(body) if wrong else oracle.gold_reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, model=MODEL)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=CATEGORIES, limit=6, mode="fc"), settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=4)
    assert summary["judged"] == 6 * len(CATEGORIES) and 0 < summary["correct"] < summary["judged"]
    run, board = Path(summary["out_dir"]), summary["leaderboard"]
    assert board["partial"] and board["parts_run"] == ["non_live", "live", "irrelevance"]
    assert board["parts_missing"] == ["multi_turn", "agentic"] and board["subset"]

    score_dir = bfcl_evaluate(tmp_path / "official", MODEL, [summary["result_files"][c] for c in CATEGORIES])
    stored = {s.sample_id: s.correct for s in store.samples(exp_id)}
    for category in CATEGORIES:
        ids = [i for i in stored if i.startswith(category + "_")]
        assert official_verdicts(score_dir, category, ids) == {i: stored[i] for i in ids}, category
    for name in CSV_FILES:
        ours = (run / name).read_text()
        assert ours == (score_dir / name).read_text(), name
    overall = (run / "data_overall.csv").read_text().splitlines()[1].split(",")[1]
    assert overall == f"{board['overall'] * 100:.2f}%"
    saved = json.loads((run / "summary.json").read_text())
    assert saved["leaderboard"]["overall"] == board["overall"]
    assert set(CSV_FILES) <= {f"{k}.csv" for k in saved["files"]}
    report = (run / "report.md").read_text()
    assert "Warning: partial overall score" in report and "BFCL v4 overall" in report

    # Exported again, bfcl-eval's writer counts the categories not run from what the process kept:
    # the same files.
    again = Path(lifecycle.export(store, exp_id, out=tmp_path / "again")["out_dir"])
    for name in CSV_FILES:
        assert (again / name).read_text() == (score_dir / name).read_text(), name


def test_a_run_named_for_a_registry_model_writes_that_models_csvs(store, tmp_path):
    """The endpoint serves the model under a name of its own; the run names the registry model it stands
    for, and its CSVs are byte for byte those `bfcl evaluate --model` writes for that model."""
    categories = ["simple_python", "irrelevance"]
    oracle = BfclOracle(categories)
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        settings = settings_for(peer, model="my-served-model")
        options = BfclOptions(categories=categories, limit=4, mode="fc", leaderboard_model=MODEL)
        exp_id = lifecycle.prepare(store, BFCL, options, settings)
        summary = lifecycle.execute(store, exp_id, settings)
    run = Path(summary["out_dir"])
    score_dir = bfcl_evaluate(tmp_path / "official", MODEL, [summary["result_files"][c] for c in categories])
    for name in CSV_FILES:
        assert (run / name).read_text() == (score_dir / name).read_text(), name
    assert "my-served-model" not in (run / "data_overall.csv").read_text()


def test_a_leaderboard_model_is_checked_before_the_run(store):
    from evalui.errors import InputError

    settings = settings_for(type("Peer", (), {"base_url": "http://127.0.0.1:9/v1"})())
    for name, said in (("no-such-model", "not a model in bfcl-eval's registry"),
                       ("gpt-4o-2024-11-20", "is a prompt model")):
        options = BfclOptions(categories=["simple_python"], limit=1, mode="fc", leaderboard_model=name)
        try:
            lifecycle.prepare(store, BFCL, options, settings)
        except InputError as exc:
            assert said in str(exc)
        else:
            raise AssertionError(f"{name} was accepted")
    assert store.experiments() == []
