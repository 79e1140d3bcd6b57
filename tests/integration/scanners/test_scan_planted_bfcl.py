"""The validity scanners on a BFCL run (prompt mode) against a scripted endpoint that plants a broken
call, a call cut at the token cap, an empty reply, a refusal and an endpoint error beside right and
wrong answers: each planted sample has exactly its findings, and `evalui scan` finds the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.openai_peer import ScriptedPeer
from support.scanner_plants import BFCL_KINDS, BfclPlantedModel


def test_bfcl_planted_samples_are_flagged_exactly(store):
    model = BfclPlantedModel()
    with ScriptedPeer(model) as peer:
        settings = settings_for(peer, max_retries=0)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=16, mode="prompt"),
                                   settings, exp_id="bfcl-planted")
        summary = lifecycle.execute(store, exp_id, settings, concurrency=4)
    records = [json.loads(line) for line in (Path(summary["out_dir"]) / "samples.jsonl").read_text().splitlines()]
    assert len(records) == 16
    for record in records:
        kind = model.kind_of(record["id"])
        assert {f["scanner"]: f["severity"] for f in record["findings"]} == BFCL_KINDS[kind], (kind, record["findings"])
    broken = next(r for r in records if model.kind_of(r["id"]) == "broken_call")
    assert broken["verdict"]["error_type"] == "decode_failure"  # the official decoder's verdict, not the scanner's
    # Hand count: 16 samples, two of each kind; 2 endpoint errors are not judged (14 judged, 2 right).
    # Invalid among the judged: 2 truncated, 2 empty; valid: 10 samples, 2 right.
    validity = summary["validity"]
    assert summary["judged"] == 14 and summary["correct"] == 2
    assert validity["invalid"] == 6 and validity["valid"] == 10 and validity["valid_correct"] == 2

    store.close()
    done = subprocess.run([sys.executable, "-m", "evalui", "scan", exp_id], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["changed"] == [] and result["validity"] == validity
    assert len(result["findings"]) == sum(len(r["findings"]) for r in records)
