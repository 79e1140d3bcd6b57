"""A GAIA run from start to exports (submission, guide, report, charts), shared by CLI and UI."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.task import BENCHMARK, GaiaTask, question_from_payload, sample_specs
from evalui.engine.client import ModelClient
from evalui.engine.experiment import register_experiment, run_folder
from evalui.engine.runner import Progress, run_experiment
from evalui.engine.settings import EndpointSettings
from evalui.engine.store import RunStore
from evalui.jsonl import write_jsonl
from evalui.reports.gaia_report import write_gaia_report, write_submission_guide
from evalui.scoring.metrics import accuracy, accuracy_by, level_drop_rates, percentile

AGENT_HOST = "local agent"


def prepare_gaia_run(store: RunStore, questions: list[GaiaQuestion], *, source: str,
                     settings: EndpointSettings | None = None, agent_spec: str | None = None,
                     exp_id: str | None = None) -> str:
    if (settings is None) == (agent_spec is None):
        raise ValueError("give either an endpoint or an agent (module:attr), not both")
    model = settings.model if settings else agent_spec
    config = {"source": source, "agent": agent_spec, "endpoint": settings.public() if settings else None}
    return register_experiment(store, BENCHMARK, exp_id, model=model, host=settings.host if settings else AGENT_HOST,
                               config=config, specs=sample_specs(questions), fixed=("agent",))


def execute_gaia_run(store: RunStore, exp_id: str, *, settings: EndpointSettings | None = None, agent=None,
                     concurrency: int = 4, requests_per_minute: float | None = None,
                     cancel: threading.Event | None = None, on_progress: Callable[[Progress], None] | None = None,
                     out: str | Path | None = None) -> dict:
    started = time.perf_counter()
    run_experiment(
        store, exp_id, GaiaTask(agent=agent), ModelClient(settings) if settings else None,
        concurrency=concurrency, requests_per_minute=requests_per_minute, cancel=cancel,
        on_progress=on_progress, secrets=settings.secrets() if settings else [],
    )
    return export_gaia_run(store, exp_id, out=out, duration_s=time.perf_counter() - started)


def task_rows(store: RunStore, exp_id: str) -> list[dict]:
    rows = []
    for sample in store.samples(exp_id):
        question = question_from_payload(sample.payload)
        verdict = sample.verdict or {}
        rows.append({
            "task_id": sample.sample_id,
            "level": question.level,
            "question": question.question,
            "file_name": question.file_name,
            "model_answer": sample.prediction,
            "final_answer": question.final_answer,
            "exact": verdict.get("exact") if verdict.get("scored") else None,
            "lenient": verdict.get("lenient") if verdict.get("scored") else None,
            "stage": sample.stage,
            "error": sample.error,
            "latency_s": sample.latency_s,
            "tokens": sample.prompt_tokens + sample.completion_tokens,
            "steps": question.steps,  # the annotators' steps, from GAIA's metadata
            "model_steps": sample.steps,
            "response": (sample.response or {}).get("text", ""),
            "trajectory": sample.trajectory,
        })
    return rows


def gaia_summary(rows: list[dict]) -> dict:
    judged = [r for r in rows if r["stage"] == "judged"]
    scored = [r for r in judged if r["exact"] is not None]
    overall = accuracy(r["exact"] for r in scored)
    per_level = accuracy_by((str(r["level"]), r["exact"]) for r in scored)
    latencies = [r["latency_s"] for r in judged if r["latency_s"] is not None]
    steps = [r["steps"] for r in scored if r["steps"] is not None]
    return {
        "total": len(rows),
        "judged": len(judged),
        "scored": len(scored),
        "correct": overall.successes,
        "accuracy": overall.rate,
        "ci95": [overall.low, overall.high],
        "lenient_correct": sum(1 for r in scored if r["lenient"]),
        "lenient_accuracy": accuracy(r["lenient"] for r in scored).rate,
        "by_level": {level: p.as_dict() for level, p in sorted(per_level.items())},
        "level_drop_rates": level_drop_rates(per_level),
        "errors": sum(1 for r in rows if r["stage"] != "judged" and r["error"]),
        "latency_median_s": percentile(latencies, 50),
        "latency_p90_s": percentile(latencies, 90),
        "average_steps": sum(steps) / len(steps) if steps else None,
        "tokens": sum(r["tokens"] for r in rows),
    }


def export_gaia_run(store: RunStore, exp_id: str, *, out: str | Path | None = None, duration_s: float | None = None) -> dict:
    experiment = store.experiment(exp_id)
    folder = run_folder(exp_id, out or experiment.get("out_dir"))
    rows = task_rows(store, exp_id)
    summary = {"exp_id": exp_id, "benchmark": BENCHMARK, "model": experiment["model"], **gaia_summary(rows)}
    submission = folder / "submission.jsonl"
    # The leaderboard's format, in task order; list answers are left exactly as the model gave them.
    write_jsonl(submission, ({"task_id": r["task_id"], "model_answer": r["model_answer"] or "",
                              "reasoning_trace": r["response"]} for r in rows if r["stage"] == "judged"))
    write_jsonl(folder / "tasks.jsonl", rows)
    summary.update(
        status=experiment["status"],
        duration_s=duration_s,
        out_dir=str(folder),
        submission=str(submission),
        guide=str(write_submission_guide(folder, summary)),
    )
    summary["report"] = str(write_gaia_report(folder, experiment, summary, rows))
    (folder / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    store.set_status(exp_id, experiment["status"], summary=summary, out_dir=str(folder))
    return summary


def tasks_frame(store: RunStore, exp_id: str):
    """The table the dashboard shows: prediction, truth and both verdicts per task."""
    import pandas as pd

    def verdict(value):
        return {True: "correct", False: "wrong", None: "–"}[value]

    rows = [{
        "task": r["task_id"], "level": r["level"], "question": (r["question"] or "")[:300],
        "file": r["file_name"], "prediction": r["model_answer"] if r["model_answer"] is not None else "",
        "truth": r["final_answer"], "exact": verdict(r["exact"]), "lenient": verdict(r["lenient"]),
        "latency s": round(r["latency_s"], 2) if r["latency_s"] is not None else None,
        "error": (r["error"] or "")[:200],
    } for r in task_rows(store, exp_id)]
    return pd.DataFrame(rows, columns=["task", "level", "question", "file", "prediction", "truth", "exact", "lenient",
                                       "latency s", "error"])
