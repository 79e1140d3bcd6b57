"""Every step of a sample's call is in the store and the exports: single replies, retried AIME
generations with their rejected attempts, and calls that failed for good."""

from __future__ import annotations

import json
from pathlib import Path

from aime_script import AimeScript
from peers import settings_for

from evalui.benchmarks.aime.options import GenerateOptions
from evalui.benchmarks.aime.spec import GENERATION
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, completion


def test_a_bfcl_sample_holds_its_one_step(store):
    oracle = BfclOracle(["simple_python"])
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=2, mode="fc"),
                                   settings_for(peer))
        summary = lifecycle.execute(store, exp_id, settings_for(peer), concurrency=2)
    for sample in store.samples(exp_id):
        assert sample.steps == 1
        [step] = sample.trajectory
        assert step["messages"] == sample.request["messages"]
        assert step["tool_calls"] and step["prompt_tokens"] == 20 and step["latency_s"] > 0
    exported = [json.loads(line) for line in (Path(summary["out_dir"]) / "samples.jsonl").read_text().splitlines()]
    assert all(row["steps"] == 1 and row["trajectory"][0]["tool_calls"] for row in exported)


def test_aime_generation_keeps_rejected_attempts_as_steps_and_no_json_in_text(store):
    script = AimeScript()
    bad_then_good = iter([completion("not json at all")])

    def answer(body, n):
        return next(bad_then_good, None) or script(body, n)

    with ScriptedPeer(answer) as peer:
        exp_id = lifecycle.prepare(store, GENERATION, GenerateOptions(n=2, seed=3, reference_source="bundled"),
                                   settings_for(peer))
        lifecycle.execute(store, exp_id, settings_for(peer), concurrency=1)
    samples = store.samples(exp_id)
    assert all(s.stage == "judged" for s in samples)
    retried = [s for s in samples if s.steps == 2]
    assert len(retried) == 1
    first, second = retried[0].trajectory
    assert first["note"] and first["text"] == "not json at all" and not second["note"]
    for sample in samples:
        assert set(sample.response) == {"problem", "rejected"}  # structured output, not JSON inside text
        assert sample.prompt_tokens == sum(step["prompt_tokens"] for step in sample.trajectory)


def test_a_call_that_fails_for_good_keeps_its_steps(store):
    with ScriptedPeer(lambda body, n: completion("never valid")) as peer:
        exp_id = lifecycle.prepare(store, GENERATION, GenerateOptions(n=1, seed=1, reference_source="bundled"),
                                   settings_for(peer))
        lifecycle.execute(store, exp_id, settings_for(peer), concurrency=1)
    [sample] = store.samples(exp_id)
    assert sample.stage == "init" and "invalid_generation" in sample.error
    assert sample.steps == 3 and all(step["note"] for step in sample.trajectory)
