"""The typed, versioned run record: samples.jsonl and summary.json are written through the models,
validate against the published JSON Schemas, and older files still read."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from peers import settings_for
from pydantic import ValidationError

from evalui.engine import lifecycle
from evalui.engine.record import (RUN_SUMMARY_VERSION, SAMPLE_RECORD_VERSION, NewerRecord, SampleRecord, StepRecord,
                                  json_schemas, read_run_summary, read_sample_record, read_samples_file,
                                  read_summary_file)
from evalui.engine.store_rows import Sample
from evalui.engine.trajectory import Step
from evalui.testing.openai_peer import ScriptedPeer, completion, error

pytestmark = pytest.mark.unit

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
KEYS_BEFORE_VERSIONS = ["id", "group", "stage", "prediction", "correct", "verdict", "error", "latency_s",
                        "prompt_tokens", "completion_tokens", "steps", "trajectory"]


def validator(name: str):
    from jsonschema import Draft202012Validator

    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_the_published_schemas_are_the_models_schemas():
    """Regenerate with: python -m evalui.engine.record"""
    published = {p.name.removesuffix(".schema.json"): json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")}
    assert published == json_schemas()


def test_the_step_record_names_every_field_of_a_step():
    assert [f.name for f in dataclasses.fields(Step)] == list(StepRecord.model_fields)
    step = Step(messages=[{"role": "user", "content": "hi"}], text="ok", tool_calls=[{"name": "f", "arguments": "{}"}],
                tool_results=[{"name": "f()", "content": "1", "error": None}], prompt_tokens=3, latency_s=0.5)
    assert StepRecord.model_validate(step).model_dump() == step.as_dict()


def test_a_run_writes_records_that_validate_against_the_published_schemas(store, monkeypatch):
    from toy_benchmark import ask

    monkeypatch.setenv("EVALUI_BENCHMARKS", "toy=toy_benchmark:BENCHMARK")
    from evalui.benchmarks.registry import get

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
        assert list(line) == ["schema_version", *KEYS_BEFORE_VERSIONS, "score"]
        assert line["schema_version"] == SAMPLE_RECORD_VERSION and line["id"] == sample.sample_id
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


def test_records_written_before_versions_read_as_version_0():
    old = {"id": "simple_python_3", "group": "simple_python", "stage": "judged", "prediction": [{"f": "{}"}],
           "correct": False, "verdict": {"correct": False, "error_type": "wrong_value", "error": "x should be 2",
                                         "official_error_type": "value_error:others"},
           "error": None, "latency_s": 0.2, "prompt_tokens": 10, "completion_tokens": 5, "steps": 1,
           "trajectory": [{"messages": [{"role": "user", "content": "q"}], "text": "", "tool_calls": [
               {"name": "f", "arguments": "{}"}]}],  # a step of an older evalui: fewer keys
           "added_later": "kept"}
    record = read_sample_record(old)
    assert record.schema_version == 0 and record.score is None
    assert record.verdict.error_type == "wrong_value" and record.verdict.official_error_type == "value_error:others"
    assert record.trajectory[0].tool_calls[0].name == "f" and record.trajectory[0].attempts == 1
    assert record.added_later == "kept"
    summary = read_run_summary({"exp_id": "e", "benchmark": "bfcl", "status": "finished", "total": 1, "judged": 1,
                                "correct": 1, "out_dir": "/x", "by_category": {"simple": {}}})
    assert summary.schema_version == 0 and summary.by_category == {"simple": {}}


def test_a_record_from_a_newer_evalui_is_refused():
    with pytest.raises(NewerRecord, match="newer than this evalui"):
        read_sample_record({"schema_version": SAMPLE_RECORD_VERSION + 1, "id": "a", "stage": "judged"})
    with pytest.raises(NewerRecord):
        read_run_summary({"schema_version": "two"})


def test_a_record_that_breaks_the_schema_is_not_written():
    sample = Sample(exp_id="e", sample_id="a", position=0, group="g", stage="judged", payload={}, correct=True,
                    verdict={"correct": True}, trajectory=[{"messages": [], "prompt_tokens": "many"}])
    with pytest.raises(ValidationError, match="prompt_tokens"):
        lifecycle.sample_record(sample)
    with pytest.raises(ValidationError, match="stage"):
        SampleRecord(id="a", stage="finished")
