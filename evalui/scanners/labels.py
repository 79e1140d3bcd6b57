"""Reviewers' labels of the validity scanners' findings ("confirmed" or "false alarm"), and each
scanner's precision measured from them.

Kept in ``finding_labels.json`` in the run's folder, beside summary.json, rather than in the store
beside the finding: findings live inside a judged sample's verdict, which a rescore replaces and a
scan rewrites, and an endpoint error's findings are never stored at all. A file of its own needs no
schema change in either store (SQLite or PostgreSQL), outlives both, and goes with the run's folder
when the run is deleted. Several reviewers may label at once: each save takes a file lock
(filelock, as the verification panel's reviews do), re-reads the file and replaces it atomically.

A label belongs to a finding by its key: the sample, scanner, step and message. A re-scan that
finds the same thing again finds its label again; a finding that is no longer found keeps its label
in the file but no longer counts. One label per finding: the latest, with who gave it and when.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from filelock import FileLock

from evalui.errors import InputError
from evalui.jsonl import write_json_atomically

CONFIRMED, FALSE_ALARM = "confirmed", "false_alarm"
LABELS = (CONFIRMED, FALSE_ALARM)
FILE_NAME = "finding_labels.json"
LOCK_TIMEOUT_S = 30


def labels_path(folder: str | Path) -> Path:
    return Path(folder) / FILE_NAME


def finding_key(sample_id: str, finding: Mapping) -> str:
    """The same finding on the same sample has the same key, whichever scan found it."""
    parts = [sample_id, finding.get("scanner"), finding.get("step"), finding.get("message")]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, default=str).encode()).hexdigest()[:24]


def read_labels(folder: str | Path | None) -> dict[str, dict]:
    """Every label of the run by finding key; {} when there are none (or no folder)."""
    if not folder:
        return {}
    path = labels_path(folder)
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the findings' labels ({exc}); repair or move the file away",
                         path=str(path)) from exc
    return stored.get("labels", {}) if isinstance(stored, dict) else {}


def save_label(folder: str | Path, sample_id: str, finding: Mapping, label: str, reviewer: str) -> dict:
    """Label one finding (replacing its earlier label); ``reviewer`` is a name already checked
    (evalui.review.names.clean_name). Returns the stored entry."""
    if label not in LABELS:
        raise InputError(f"a finding's label is one of {', '.join(LABELS)}, not {label!r}")
    if not str(reviewer or "").strip():
        raise InputError("labelling a finding needs a reviewer name")
    path = labels_path(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"sample_id": sample_id, "scanner": finding.get("scanner"), "severity": finding.get("severity"),
             "step": finding.get("step"), "message": finding.get("message"), "label": label,
             "reviewer": reviewer, "labelled_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT_S):
        labels = read_labels(folder)  # refuses (and leaves alone) a file it cannot read
        labels[finding_key(sample_id, finding)] = entry
        write_json_atomically(path, {"labels": labels})
    return entry


def label_precision(labels: Mapping[str, dict], findings: Mapping[str, Iterable[Mapping]]) -> dict[str, dict]:
    """Per scanner, ``{confirmed, false_alarm, precision}`` over the labelled findings that the run still
    has (``findings`` by sample id); precision is confirmed / (confirmed + false alarm), None without labels."""
    counts: dict[str, dict] = {}
    for sample_id, found in findings.items():
        for finding in found or []:
            entry = labels.get(finding_key(sample_id, finding))
            if entry is None or entry.get("label") not in LABELS:
                continue
            scanner = counts.setdefault(str(finding.get("scanner")), {CONFIRMED: 0, FALSE_ALARM: 0})
            scanner[entry["label"]] += 1
    for scanner in counts.values():
        labelled = scanner[CONFIRMED] + scanner[FALSE_ALARM]
        scanner["precision"] = scanner[CONFIRMED] / labelled if labelled else None
    return dict(sorted(counts.items()))
