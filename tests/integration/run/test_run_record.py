"""The typed, versioned run record: samples.jsonl and summary.json are written through the models,
validate against the published JSON Schemas, and older files still read."""
from __future__ import annotations

import json
import re
from pathlib import Path

from peers import settings_for

from evalui.core.record import (
    RUN_SUMMARY_VERSION,
    SAMPLE_RECORD_VERSION,
    read_samples_file,
    read_summary_file,
)
from evalui.run import lifecycle
from support.openai_peer import ScriptedPeer, completion, error

SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"
KEYS_BEFORE_VERSIONS = ["id", "group", "stage", "prediction", "correct", "verdict", "error", "latency_s",
                        "prompt_tokens", "completion_tokens", "steps", "trajectory"]


def validator(name: str):
    from jsonschema import Draft202012Validator

    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_a_run_writes_records_that_validate_against_the_published_schemas(store, monkeypatch):
    from toy_benchmark import ask

    monkeypatch.setenv("EVALUI_BENCHMARKS", "toy=toy_benchmark:BENCHMARK")
    from evalui.core.registry import get

    def script(body, n):
        question = body["messages"][-1]["content"]
        return error(500, "down") if int(re.findall(r"\d+", question)[0]) % 5 == 0 else completion(ask(question))

    benchmark = get("toy")
    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0)
        exp_id = lifecycle.prepare(store, benchmark, benchmark.make_options({"n": 30, "seed": 2}), settings,
                                   exp_id="record-1")
        summary = lifecycle.execute(store, exp_id, settings, concurrency=2)
    folder = Path(summary["out_dir"])
    samples, sample_schema = store.samples(exp_id), validator("sample_record")
    lines = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    assert len(lines) == len(samples) == 30
    verdicts = {"correct": 0, "wrong": 0, "error": 0}
    for line, sample in zip(lines, samples):
        sample_schema.validate(line)
        assert list(line) == ["schema_version", *KEYS_BEFORE_VERSIONS, "score", "findings"]
        assert line["schema_version"] == SAMPLE_RECORD_VERSION and line["id"] == sample.sample_id
        # The store keeps the scanners' findings in the verdict; the record has them on their own.
        stored_findings = (sample.verdict or {}).pop("findings", line["findings"])
        assert line["findings"] == stored_findings
        assert line["verdict"] == sample.verdict and line["trajectory"] == sample.trajectory  # kept exactly
        if sample.stage != "judged":
            verdicts["error"] += 1
            assert line["score"] is None and "down" in line["error"]
        else:
            verdicts["correct" if sample.correct else "wrong"] += 1
            assert line["score"]["value"] == ("C" if sample.correct else "I")
    assert all(verdicts.values()), verdicts  # the run has all three kinds
    written = json.loads((folder / "summary.json").read_text())
    validator("run_summary").validate(written)
    assert written["schema_version"] == RUN_SUMMARY_VERSION and summary["schema_version"] == RUN_SUMMARY_VERSION
    assert written["by_parity"] and written["provenance"]["python"]  # a benchmark's own figures are kept
    assert store.experiment(exp_id)["summary"]["schema_version"] == RUN_SUMMARY_VERSION
    # Read back typed.
    records = read_samples_file(folder / "samples.jsonl")
    assert [r.id for r in records] == [s.sample_id for s in samples]
    assert read_summary_file(folder / "summary.json").by_parity == written["by_parity"]
