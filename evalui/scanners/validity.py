"""The valid-sample score: accuracy over the samples no scanner found invalid, beside the raw one.

A sample is invalid when it has a finding of severity ``invalid`` (the environment failed it).
``valid_accuracy`` is the share of correct answers among the judged, scored samples that are not
invalid, with its 95 % interval clustered as the raw accuracy's (evalui.stats.clustered);
``invalid`` counts invalid samples of every stage (an endpoint error is never judged), and
``by_scanner`` counts, per scanner, the samples it flagged at each severity.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from evalui.scanners.base import INVALID, SEVERITIES
from evalui.stats.clustered import ClusterRule, cluster_key, clustered_accuracy


def is_invalid(findings: Iterable[Mapping[str, Any]] | None) -> bool:
    """Whether any of ``findings`` (evalui.core.record.Finding, or as the store keeps them) is ``invalid``."""
    return any(f.get("severity") == INVALID for f in findings or [])


def _scored(sample) -> bool:
    return sample.stage == "judged" and (sample.verdict or {}).get("scored") is not False


def validity_figures(samples: list, findings: Mapping[str, list[dict]], versions: Mapping[str, str],
                     rule: ClusterRule | None = None) -> dict:
    """``{valid_accuracy, valid_ci95, valid, valid_correct, invalid, invalid_judged, by_scanner, scanners}``
    for ``samples`` and their findings by sample id; ``versions`` names the scanners that ran, ``rule``
    is the benchmark's cluster rule (evalui.stats.clustered)."""
    invalid = {sid for sid, found in findings.items() if is_invalid(found)}
    valid = [s for s in samples if _scored(s) and s.sample_id not in invalid]
    overall = clustered_accuracy((cluster_key(s.sample_id, rule), bool(s.correct)) for s in valid)
    by_scanner: dict[str, dict[str, int]] = {name: {} for name in versions}
    for found in findings.values():
        flagged: dict[str, str] = {}  # scanner -> its most severe finding on this sample
        for item in found:
            current = flagged.get(item["scanner"])
            if current is None or SEVERITIES.index(item["severity"]) < SEVERITIES.index(current):
                flagged[item["scanner"]] = item["severity"]
        for scanner, severity in flagged.items():
            counts = by_scanner.setdefault(scanner, {})
            counts[severity] = counts.get(severity, 0) + 1
    return {
        "valid_accuracy": overall.rate if valid else None,
        "valid_ci95": [overall.low, overall.high] if valid else [None, None],
        "valid": len(valid),
        "valid_correct": overall.successes,
        "invalid": len(invalid),
        "invalid_judged": sum(1 for s in samples if s.sample_id in invalid and _scored(s)),
        "by_scanner": by_scanner,
        "scanners": dict(versions),
    }
