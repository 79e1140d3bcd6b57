"""A BFCL run from start to exports: the function the CLI and the dashboard both call."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

from evalui.benchmarks.bfcl.data import VERSION_PREFIX, check_category
from evalui.benchmarks.bfcl.task import BENCHMARK, BfclTask, sample_specs
from evalui.engine.client import ModelClient
from evalui.engine.experiment import register_experiment, run_folder, sample_summary
from evalui.engine.runner import Progress, run_experiment
from evalui.engine.settings import EndpointSettings
from evalui.engine.store import RunStore
from evalui.jsonl import write_jsonl
from evalui.reports.bfcl_report import write_bfcl_report
from evalui.scoring.bfcl_official import load_official


def prepare_bfcl_run(store: RunStore, settings: EndpointSettings, categories: list[str], *, limit: int | None,
                     mode: str, exp_id: str | None = None) -> str:
    """Register the run and its samples (idempotent for an existing exp_id); returns the exp_id."""
    if mode not in ("fc", "prompt"):
        raise ValueError(f"mode must be 'fc' or 'prompt', not {mode!r}")
    categories = [check_category(c.strip()) for c in categories if c.strip()]
    if not categories:
        raise ValueError("choose at least one BFCL category")
    config = {"categories": categories, "limit": limit, "mode": mode, "endpoint": settings.public()}
    return register_experiment(store, BENCHMARK, exp_id, model=settings.model, host=settings.host, config=config,
                               specs=sample_specs(categories, limit), fixed=("mode",))


def execute_bfcl_run(store: RunStore, settings: EndpointSettings, exp_id: str, *, concurrency: int = 8,
                     requests_per_minute: float | None = None, cancel: threading.Event | None = None,
                     on_progress: Callable[[Progress], None] | None = None, out: str | Path | None = None) -> dict:
    """Run (or resume) a registered BFCL experiment, then write its exports; returns the summary."""
    experiment = store.experiment(exp_id)
    mode = experiment["config"]["mode"]
    load_official()  # the checker's slow first import is not part of the run phase's wall time
    started = time.perf_counter()
    run_experiment(
        store, exp_id, BfclTask(mode=mode), ModelClient(settings),
        concurrency=concurrency, requests_per_minute=requests_per_minute, cancel=cancel,
        on_progress=on_progress, secrets=settings.secrets(),
    )
    duration = time.perf_counter() - started
    return export_bfcl_run(store, exp_id, out=out, duration_s=duration)


def export_bfcl_run(store: RunStore, exp_id: str, *, out: str | Path | None = None, duration_s: float | None = None) -> dict:
    experiment = store.experiment(exp_id)
    folder = run_folder(exp_id, out or experiment.get("out_dir"))
    judged, summary = sample_summary(store, exp_id)
    summary.update(
        benchmark=BENCHMARK,
        model=experiment["model"],
        mode=experiment["config"]["mode"],
        status=store.experiment(exp_id)["status"],
        duration_s=duration_s if duration_s is not None else (experiment.get("summary") or {}).get("duration_s"),
        out_dir=str(folder),
        by_category=summary.pop("by_group"),
    )
    result_files = {}
    for category in experiment["config"]["categories"]:
        rows = [{"id": s.sample_id, "result": s.prediction} for s in judged if s.group == category]
        path = folder / f"{VERSION_PREFIX}_{category}_result.json"
        write_jsonl(path, rows)
        result_files[category] = str(path)
    write_jsonl(folder / "samples.jsonl", (sample_row(s) for s in store.samples(exp_id)))
    summary["result_files"] = result_files
    summary["report"] = str(write_bfcl_report(folder, experiment, summary, judged))
    (folder / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    store.set_status(exp_id, summary["status"], summary=summary, out_dir=str(folder))
    return summary


def sample_row(sample) -> dict:
    verdict = sample.verdict or {}
    return {
        "id": sample.sample_id,
        "category": sample.group,
        "stage": sample.stage,
        "prediction": sample.prediction,
        "correct": sample.correct,
        "error_type": verdict.get("error_type"),
        "error": verdict.get("error") or sample.error,
        "latency_s": sample.latency_s,
        "tokens": sample.prompt_tokens + sample.completion_tokens,
        "steps": sample.steps,
        "trajectory": sample.trajectory,
    }


def samples_frame(store: RunStore, exp_id: str):
    """The sample table the dashboard shows: question, prediction, truth and verdict per sample."""
    import pandas as pd

    from evalui.reports.bfcl_report import question_of, truth_of

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
