"""The typed, versioned run record: samples.jsonl and summary.json are written through the models,
validate against the published JSON Schemas, and older files still read."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from evalui.core.record import (
    SAMPLE_RECORD_VERSION,
    NewerRecord,
    SampleRecord,
    StepRecord,
    json_schemas,
    read_run_summary,
    read_sample_record,
)
from evalui.run import lifecycle
from evalui.run.trajectory import Step
from evalui.store.rows import Sample

SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"


def test_the_published_schemas_are_the_models_schemas():
    """Regenerate with: python -m evalui.core.record"""
    published = {p.name.removesuffix(".schema.json"): json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")}
    assert published == json_schemas()


def test_the_step_record_names_every_field_of_a_step():
    assert [f.name for f in dataclasses.fields(Step)] == list(StepRecord.model_fields)
    step = Step(messages=[{"role": "user", "content": "hi"}], text="ok", tool_calls=[{"name": "f", "arguments": "{}"}],
                tool_results=[{"name": "f()", "content": "1", "error": None}], prompt_tokens=3, latency_s=0.5)
    assert StepRecord.model_validate(step).model_dump() == step.as_dict()


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
