"""A format-sensitivity run against a scripted peer that answers in each request's configured format
(gold for most, wrong for some): every verdict, data_format_sensitivity.csv and data_overall.csv equal
those of the official ``bfcl evaluate`` on the run's exported result file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from bfcl_official_cli import bfcl_evaluate, official_verdicts
from peers import settings_for

from evalui.benchmarks.bfcl.scoring.format_sensitivity import CATEGORY, configurations
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.errors import InputError
from evalui.run import lifecycle
from support.bfcl_format_oracle import WRONG_KINDS, FormatOracle
from support.openai_peer import ScriptedPeer

MODEL = "gpt-4o-2024-11-20"  # a prompting model registered in bfcl-eval, so `bfcl evaluate` reads its folder
ENTRIES = 3


def wrong_for(entry):
    pick = int(hashlib.sha256(entry.id.encode()).hexdigest()[:8], 16) % 5
    return WRONG_KINDS[pick - 2] if pick >= 2 else None  # two in five gold


def test_format_sensitivity_equals_the_official_tool(store, tmp_path):
    oracle = FormatOracle(ENTRIES, wrong_for)
    with ScriptedPeer(oracle) as peer:
        settings = settings_for(peer, model=MODEL)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=ENTRIES, mode="prompt"),
                                   settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=4)
    assert summary["judged"] == ENTRIES * 26 and 0 < summary["correct"] < summary["judged"]
    block = summary["format_sensitivity"]
    assert list(block["by_configuration"]) == list(configurations()) and block["entries_per_configuration"] == ENTRIES

    run = Path(summary["out_dir"])
    score_dir = bfcl_evaluate(tmp_path / "official", MODEL, [summary["result_files"][CATEGORY]], CATEGORY)
    stored = {s.sample_id: s.correct for s in store.samples(exp_id)}
    assert official_verdicts(score_dir, CATEGORY, list(stored)) == stored
    for name in ("data_format_sensitivity.csv", "data_overall.csv"):
        assert (run / name).read_text() == (score_dir / name).read_text(), name
    row = (run / "data_format_sensitivity.csv").read_text().splitlines()[1].split(",")
    assert row[2:4] == [str(block["spread_pp"]), str(block["std_pp"])] and block["spread_pp"] > 0
    header = json.loads(next(score_dir.rglob(f"BFCL_v4_{CATEGORY}_score.json")).read_text().splitlines()[0])
    assert header["accuracy_max_delta"] == block["spread_pp"] and header["accuracy_std"] == block["std_pp"]

    saved = json.loads((run / "summary.json").read_text())
    assert saved["format_sensitivity"]["spread_pp"] == block["spread_pp"]
    assert (run / "format_sensitivity.html").is_file()
    assert "## Format sensitivity" in (run / "report.md").read_text()


def test_fc_mode_is_refused_before_the_run_is_registered(store):
    with ScriptedPeer(lambda body, n: None) as peer:
        with pytest.raises(InputError, match="--mode prompt"):
            lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=1, mode="fc"),
                              settings_for(peer, model=MODEL))
    assert not store.experiments()
