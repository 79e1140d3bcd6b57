"""What every launcher does around the runner: name the run, register it, collect its numbers."""

from __future__ import annotations

import re
import secrets
import time
from collections import Counter
from pathlib import Path

from evalui.config import runs_dir
from evalui.stats.clustered import ClusterRule, cluster_key, clustered_accuracy, clustered_accuracy_by
from evalui.store.run_store import Sample


def new_exp_id(benchmark: str, model: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", model.split("/")[-1]).strip("-").lower() or "model"
    # The suffix: two runs started in the same second (two visitors, two tests) must not share an id,
    # or the second would resume the first.
    return f"{benchmark}-{slug}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def check_exp_id(exp_id: str) -> str:
    # exp_id names a folder under the data dir, so it must not escape it.
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}", exp_id or ""):
        raise ValueError(f"exp_id {exp_id!r}: use letters, digits, '.', '_' and '-' (at most 128)")
    return exp_id


def run_folder(exp_id: str, out: str | Path | None) -> Path:
    folder = Path(out) if out else runs_dir() / exp_id
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def summary_of(exp_id: str, samples: list[Sample], rule: ClusterRule | None = None) -> dict:
    """The figures every benchmark reports, from its samples: accuracy, per group, errors, tokens, steps.
    ``rule``: the benchmark's cluster rule (its spec's ``cluster_of``; None: each sample its own)."""
    judged = [s for s in samples if s.stage == "judged"]
    # Intervals clustered where answers are not independent (a sample's epochs, BFCL multi-turn entries
    # sharing a base entry, …); without clusters they are Wilson's, as before.
    overall = clustered_accuracy((cluster_key(s.sample_id, rule), bool(s.correct)) for s in judged)
    per_group = clustered_accuracy_by((s.group, cluster_key(s.sample_id, rule), bool(s.correct)) for s in judged)
    # A sample whose answer is hidden (verdict "scored": False) is not wrong, whatever its correct flag says.
    error_types = Counter((s.verdict or {}).get("error_type") or "endpoint_error" for s in judged
                          if not s.correct and (s.verdict or {}).get("scored") is not False)
    steps = [s.steps for s in judged if s.trajectory]
    return {
        "exp_id": exp_id,
        "total": len(samples),
        "judged": len(judged),
        "correct": overall.successes,
        "accuracy": overall.rate,
        "ci95": [overall.low, overall.high],
        "ci95_method": overall.method,
        "clusters": overall.clusters,
        "errors": sum(1 for s in samples if s.stage != "judged" and s.error),
        "tokens": sum(s.prompt_tokens + s.completion_tokens for s in samples),
        "by_group": {g: p.as_dict() for g, p in per_group.items()},
        "error_types": dict(error_types.most_common()),
        "mean_steps": sum(steps) / len(steps) if steps else None,
    }


