"""A GAIA run from start to exports (submission, guide, report, charts), shared by CLI and UI."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.spec import BENCHMARK, GaiaOptions
from evalui.benchmarks.gaia.task import GaiaTask, question_from_payload, sample_specs
from evalui.engine import lifecycle
from evalui.engine.runner import Progress
from evalui.engine.settings import EndpointSettings
from evalui.engine.store import RunStore
from evalui.jsonl import write_jsonl
from evalui.reports.gaia_report import write_gaia_report, write_submission_guide
from evalui.scoring.metrics import accuracy, accuracy_by, level_drop_rates, percentile

AGENT_HOST = "local agent"


def prepare_gaia_run(store: RunStore, questions: list[GaiaQuestion], *, source: str,
                     settings: EndpointSettings | None = None, agent_spec: str | None = None,
                     exp_id: str | None = None, concurrency: int | None = None,
                     requests_per_minute: float | None = None, out: str | Path | None = None) -> str:
    """Register the run for questions the caller selected (CLI flags, the tab's source)."""
    if (settings is None) == (agent_spec is None):
        raise ValueError("give either an endpoint or an agent (module:attr), not both")
    return lifecycle.prepare(store, BENCHMARK, GaiaOptions(source=source, agent=agent_spec), settings, exp_id=exp_id,
                             concurrency=concurrency, requests_per_minute=requests_per_minute, out=out,
                             model=settings.model if settings else agent_spec,
                             host=None if settings else AGENT_HOST, specs=sample_specs(questions))


def execute_gaia_run(store: RunStore, exp_id: str, *, settings: EndpointSettings | None = None, agent=None,
                     concurrency: int | None = None, requests_per_minute: float | None = None,
                     cancel: threading.Event | None = None, on_progress: Callable[[Progress], None] | None = None,
                     out: str | Path | None = None) -> dict:
    """Run (or resume) a registered GAIA run with the endpoint or an agent object already loaded."""
    if out:
        store.update_config(exp_id, {**store.experiment(exp_id)["config"], "out": str(out)})
    task = GaiaTask(agent=agent) if agent is not None or settings is not None else None
    return lifecycle.execute(store, exp_id, settings, concurrency=concurrency, requests_per_minute=requests_per_minute,
                             cancel=cancel, on_progress=on_progress, task=task)


def export_gaia_run(store: RunStore, exp_id: str, *, out: str | Path | None = None, duration_s: float | None = None) -> dict:
    if out:
        store.update_config(exp_id, {**store.experiment(exp_id)["config"], "out": str(out)})
    return lifecycle.export(store, exp_id, duration_s=duration_s)


def task_rows(samples: list) -> list[dict]:
    rows = []
    for sample in samples:
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


def write_gaia_files(folder: Path, experiment: dict, summary: dict, samples: list) -> dict:
    """The leaderboard submission (in task order, answers exactly as given), the task table, the
    guide and the report."""
    rows = task_rows(samples)
    submission = folder / "submission.jsonl"
    write_jsonl(submission, ({"task_id": r["task_id"], "model_answer": r["model_answer"] or "",
                              "reasoning_trace": r["response"]} for r in rows if r["stage"] == "judged"))
    write_jsonl(folder / "tasks.jsonl", rows)
    summary.update(submission=str(submission), guide=str(write_submission_guide(folder, summary)))
    summary["report"] = str(write_gaia_report(folder, experiment, summary, rows))
    return {"submission": submission, "tasks": folder / "tasks.jsonl", "guide": Path(summary["guide"]),
            "report": Path(summary["report"])}


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
    } for r in task_rows(store.samples(exp_id))]
    return pd.DataFrame(rows, columns=["task", "level", "question", "file", "prediction", "truth", "exact", "lenient",
                                       "latency s", "error"])
