"""The viewer keeps a run's rows between reads (pollers of /viewer_samples would rebuild all of them on
every call), and the rows it returns still follow every write to the run: a verdict, a rescore that
keeps the verdict's correctness, findings written again, an endpoint error retried, a deleted and
re-stored run. The findings of never-judged samples are the ones stored for them."""
from __future__ import annotations

import pytest

from evalui.viewer import data as viewer_data
from evalui.viewer import findings as finding_labels

pytestmark = pytest.mark.unit


def store_run(store, exp_id: str = "r", model: str = "m") -> None:
    store.create_or_get_experiment(exp_id, "echo", model, "h", {})
    store.add_samples(exp_id, [(f"s{i}", "g", {"i": i}) for i in range(4)])
    judge(store, exp_id, "s0", True, {"findings": []})
    store.record_error(exp_id, "s1", request={}, error="HTTP 500: first", attempts=1)


def judge(store, exp_id: str, sample_id: str, correct: bool, verdict: dict) -> None:
    store.record_rollout(exp_id, sample_id, request={}, response={}, latency_s=0.5, prompt_tokens=3,
                         completion_tokens=2, attempts=1)
    store.record_judgement(exp_id, sample_id, prediction=None, correct=correct, verdict=verdict)


def row(store, sample_id: str, exp_id: str = "r") -> dict:
    return next(r for r in viewer_data.run_rows(store, exp_id) if r["id"] == sample_id)


def counted(monkeypatch, owner, name: str) -> list:
    calls: list = []
    original = getattr(owner, name)

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_an_unchanged_run_is_read_once_and_every_write_shows(store, monkeypatch):
    store_run(store)
    reads = counted(monkeypatch, store, "sample_rows")
    first = viewer_data.run_rows(store, "r")
    assert viewer_data.run_rows(store, "r") == first and len(reads) == 1

    judge(store, "r", "s2", False, {"error_type": "wrong_value", "findings": []})
    assert (row(store, "s2")["verdict"], row(store, "s2")["error_type"]) == ("wrong", "wrong_value")
    # A rescore that keeps the sample wrong leaves the run's counts as they were.
    store.record_judgement("r", "s2", prediction=None, correct=False, verdict={"error_type": "wrong_count"})
    assert row(store, "s2")["error_type"] == "wrong_count"
    # Findings written again change neither counts nor the samples' write times.
    store.record_findings("r", {"s0": {"findings": [{"scanner": "refusal", "severity": "invalid"}]}})
    assert (row(store, "s0")["scanners"], row(store, "s0")["invalid"]) == (["refusal"], True)
    store.record_error("r", "s1", request={}, error="HTTP 502: second", attempts=1)
    assert row(store, "s1")["verdict"] == "error"
    assert len(reads) == 5  # once more for each write, not for each read

    store.delete_experiment("r")
    with pytest.raises(viewer_data.UnknownRun):
        viewer_data.run_rows(store, "r")
    store_run(store)
    assert row(store, "s2")["verdict"] == "pending" and row(store, "s0")["scanners"] == []


def test_the_caller_may_change_its_list(store):
    store_run(store)
    viewer_data.run_rows(store, "r").clear()
    assert len(viewer_data.run_rows(store, "r")) == 4


def test_never_judged_samples_show_the_findings_their_summary_stored(store):
    """An endpoint error's findings are stored with the run's summary (evalui.run.findings.keep), and a
    read shows them as stored: nothing is scanned on reading, and asking the sample again clears them."""
    store_run(store)
    assert row(store, "s1")["verdict"] == "error" and row(store, "s1")["scanners"] == []  # not scanned yet
    found = [{"scanner": "endpoint_error", "severity": "invalid", "step": None, "message": "HTTP 500"}]
    store.record_findings("r", {}, {"s1": found})
    assert (row(store, "s1")["scanners"], row(store, "s1")["invalid"]) == (["endpoint_error"], True)
    assert finding_labels.run_findings(store, store.experiment("r"), [store.sample("r", "s1")]) == {"s1": found}
    store.record_error("r", "s1", request={}, error="HTTP 502: again", attempts=1)
    assert row(store, "s1")["scanners"] == [] and store.sample("r", "s1").findings is None
