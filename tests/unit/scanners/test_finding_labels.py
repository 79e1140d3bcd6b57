"""Reviewers' labels of scanner findings: stored per run in a locked JSON file, kept across a re-scan
that finds the same thing, and each scanner's precision counted from them."""

from __future__ import annotations

import json
import threading

import pytest

from evalui.errors import InputError
from evalui.scanners.labels import (
    CONFIRMED,
    FALSE_ALARM,
    finding_key,
    label_precision,
    labels_path,
    read_labels,
    save_label,
)

pytestmark = pytest.mark.unit

REFUSAL = {"scanner": "refusal", "severity": "warning", "message": "the reply refuses", "step": 1}
EMPTY = {"scanner": "empty_reply", "severity": "invalid", "message": "the final reply is empty", "step": 2}
EMPTY_TOO = {"scanner": "empty_reply", "severity": "invalid", "message": "the final reply is empty", "step": 1}


def test_a_label_is_kept_by_its_finding_and_counted_in_precision(tmp_path):
    save_label(tmp_path, "q1", REFUSAL, CONFIRMED, "Ada")
    save_label(tmp_path, "q2", EMPTY, FALSE_ALARM, "Ada")
    save_label(tmp_path, "q3", EMPTY_TOO, CONFIRMED, "Bo")
    save_label(tmp_path, "q4", EMPTY_TOO, CONFIRMED, "Bo")
    labels = read_labels(tmp_path)
    assert labels[finding_key("q1", REFUSAL)]["reviewer"] == "Ada"
    assert json.loads(labels_path(tmp_path).read_text())["labels"] == labels

    findings = {"q1": [REFUSAL], "q2": [EMPTY], "q3": [EMPTY_TOO], "q4": [EMPTY_TOO], "q5": [EMPTY]}
    assert label_precision(labels, findings) == {
        "empty_reply": {CONFIRMED: 2, FALSE_ALARM: 1, "precision": 2 / 3},  # q5's finding has no label
        "refusal": {CONFIRMED: 1, FALSE_ALARM: 0, "precision": 1.0}}


def test_relabelling_replaces_and_a_rescan_keeps_only_the_same_finding(tmp_path):
    save_label(tmp_path, "q2", EMPTY, CONFIRMED, "Ada")
    save_label(tmp_path, "q2", EMPTY, FALSE_ALARM, "Bo")  # the latest label counts, with its reviewer
    labels = read_labels(tmp_path)
    assert len(labels) == 1 and next(iter(labels.values()))["reviewer"] == "Bo"
    # A re-scan finds the same thing again (a new dict, same content): the label is still there.
    assert label_precision(labels, {"q2": [dict(EMPTY)]})["empty_reply"][FALSE_ALARM] == 1
    # A finding that is no longer found (another step) does not count, but its label stays in the file.
    assert label_precision(labels, {"q2": [EMPTY_TOO]}) == {}
    assert len(read_labels(tmp_path)) == 1


def test_labels_need_a_reviewer_and_a_known_label_and_an_unreadable_file_is_left_alone(tmp_path):
    with pytest.raises(InputError, match="reviewer"):
        save_label(tmp_path, "q1", REFUSAL, CONFIRMED, "  ")
    with pytest.raises(InputError, match="confirmed, false_alarm"):
        save_label(tmp_path, "q1", REFUSAL, "maybe", "Ada")
    assert read_labels(tmp_path) == {} and read_labels(None) == {}
    labels_path(tmp_path).write_text("{ not json")
    with pytest.raises(InputError, match="cannot read"):
        save_label(tmp_path, "q1", REFUSAL, CONFIRMED, "Ada")
    assert labels_path(tmp_path).read_text() == "{ not json"


def test_concurrent_reviewers_lose_no_label(tmp_path):
    def label(number):
        for step in range(5):
            save_label(tmp_path, f"q{number}", {**REFUSAL, "step": step}, CONFIRMED, f"reviewer {number}")

    threads = [threading.Thread(target=label, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(read_labels(tmp_path)) == 20


def test_the_inspector_filters_by_finding_and_shows_each_with_its_label_as_text(store):
    """Through what the viewer reads: the run's list (evalui.viewer.data.listing) and one sample's pane."""
    from evalui.viewer import data, rows
    from evalui.viewer.findings import label_finding
    from evalui.viewer.inspector_data import finding_choices

    hostile = {**REFUSAL, "message": '<img src=x onerror="alert(1)">'}
    store.create_or_get_experiment("run", "gaia", "m", "h", {})
    store.add_samples("run", [("q1", "g", {}), ("q2", "g", {}), ("q3", "g", {})])
    for sample_id, correct, found in (("q1", False, [hostile]), ("q2", False, [EMPTY, REFUSAL]), ("q3", True, [])):
        store.record_rollout("run", sample_id, request={}, response={}, latency_s=1.0, prompt_tokens=1,
                             completion_tokens=1, attempts=1)
        store.record_judgement("run", sample_id, prediction="x", correct=correct,
                               verdict={"correct": correct, "findings": found})

    def shown(finding):
        return [r["id"] for r in data.listing(store, "run", finding=finding)[1]]

    assert shown(rows.ANY_INVALID) == ["q2"]
    assert shown("refusal") == ["q1", "q2"]
    assert shown(rows.ALL) == ["q1", "q2", "q3"]
    assert rows.filter_choices(data.run_rows(store, "run"))["finding"] == ["all", rows.ANY_INVALID, "empty_reply",
                                                                           "refusal"]

    label_finding(store, "run", "q1", 1, FALSE_ALARM, "<b>Ada</b>")
    page, choices = data.pane(store, "run", "q1")
    assert 'data-label="false_alarm"' in page and "<img" not in page and "&lt;b&gt;Ada&lt;/b&gt;" in page
    assert choices == [("1. refusal (warning, step 1)", 1)]
    assert data.pane(store, "run", "q2")[1] == finding_choices([EMPTY, REFUSAL]) == [
        ("1. empty_reply (invalid, step 2)", 1), ("2. refusal (warning, step 1)", 2)]
