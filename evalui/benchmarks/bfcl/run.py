"""A BFCL run from start to exports: the functions the CLI and the dashboard both call."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

from evalui.benchmarks.bfcl.spec import BENCHMARK, BfclOptions
from evalui.engine import lifecycle
from evalui.engine.runner import Progress
from evalui.engine.settings import EndpointSettings
from evalui.engine.store import RunStore
from evalui.benchmarks.bfcl.scoring.official import load_official


def prepare_bfcl_run(store: RunStore, settings: EndpointSettings, categories: list[str], *, limit: int | None,
                     mode: str, exp_id: str | None = None, concurrency: int | None = None,
                     requests_per_minute: float | None = None, out: str | Path | None = None) -> str:
    """Register the run and its samples (an existing exp_id resumes, adopting a changed selection)."""
    from evalui.engine import local_model

    if settings.model == local_model.MODEL_NAME and mode not in local_model.MODES:
        raise ValueError(f"the local model ({local_model.MODEL_NAME}) has no function-calling format and supports "
                         "BFCL's prompt mode only: choose prompt mode")
    options = BfclOptions(categories=[c.strip() for c in categories if c.strip()], limit=limit or None, mode=mode)
    return lifecycle.prepare(store, BENCHMARK, options, settings, exp_id=exp_id, concurrency=concurrency,
                             requests_per_minute=requests_per_minute, out=out)


def execute_bfcl_run(store: RunStore, settings: EndpointSettings, exp_id: str, *, concurrency: int | None = None,
                     requests_per_minute: float | None = None, cancel: threading.Event | None = None,
                     on_progress: Callable[[Progress], None] | None = None, out: str | Path | None = None) -> dict:
    """Run (or resume) a registered BFCL experiment, then write its exports; returns the summary."""
    if out:
        config = store.experiment(exp_id)["config"]
        store.update_config(exp_id, {**config, "out": str(out)})
    load_official()  # the checker's slow first import is not part of the run phase's wall time
    return lifecycle.execute(store, exp_id, settings, concurrency=concurrency, requests_per_minute=requests_per_minute,
                             cancel=cancel, on_progress=on_progress)


def export_bfcl_run(store: RunStore, exp_id: str, *, out: str | Path | None = None, duration_s: float | None = None) -> dict:
    if out:
        store.update_config(exp_id, {**store.experiment(exp_id)["config"], "out": str(out)})
    return lifecycle.export(store, exp_id, duration_s=duration_s)


def samples_frame(store: RunStore, exp_id: str):
    """The sample table the dashboard shows: question, prediction, truth and verdict per sample."""
    import pandas as pd

    from evalui.benchmarks.bfcl.report import question_of, truth_of

    rows = []
    for sample in store.samples(exp_id):
        verdict = sample.verdict or {}
        rows.append({
            "id": sample.sample_id,
            "category": sample.group,
            "question": question_of(sample)[:300],
            "prediction": json.dumps(sample.prediction, ensure_ascii=False) if sample.prediction is not None else "",
            "ground truth": truth_of(sample)[:300],
            "verdict": {True: "correct", False: "wrong"}.get(sample.correct, "error" if sample.error else sample.stage),
            "error type": verdict.get("error_type") or ("endpoint_error" if sample.error else ""),
            "detail": (verdict.get("error") or sample.error or "")[:300],
            "latency s": round(sample.latency_s, 3) if sample.latency_s is not None else None,
        })
    return pd.DataFrame(rows, columns=["id", "category", "question", "prediction", "ground truth", "verdict",
                                       "error type", "detail", "latency s"])
