"""A GAIA run from start to exports (submission, guide, report, charts), shared by CLI and UI."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.spec import BENCHMARK, GaiaOptions, check, task
from evalui.benchmarks.gaia.task import GaiaTask, question_from_payload, sample_specs
from evalui.engine import lifecycle
from evalui.engine.runner import Progress
from evalui.engine.settings import EndpointSettings
from evalui.engine.store import RunStore
from evalui.jsonl import write_jsonl
from evalui.reports.gaia_report import write_gaia_report, write_submission_guide
from evalui.scoring.metrics import accuracy, accuracy_by, level_drop_rates, percentile

AGENT_HOST = "local agent"


def prepare_gaia_run(store: RunStore, selection: GaiaOptions | list[GaiaQuestion], *, source: str | None = None,
                     settings: EndpointSettings | None = None, agent_spec: str | None = None,
                     exp_id: str | None = None, concurrency: int | None = None,
                     requests_per_minute: float | None = None, out: str | Path | None = None) -> str:
    """Register the run (or reopen it to resume). ``selection`` is the options, whose ``source`` the
    run records and a resume reloads; a list of questions already loaded is still taken, recorded
    under ``source`` as a label only."""
    if isinstance(selection, GaiaOptions):
        options, specs = selection, None
        if agent_spec:
            options.agent = agent_spec
    else:
        options, specs = GaiaOptions(source=source or "questions", agent=agent_spec), sample_specs(selection)
    if (settings is None) == (options.agent is None):
        raise ValueError("give either an endpoint or an agent (module:attr), not both")
    check(options)
    return lifecycle.prepare(store, BENCHMARK, options, settings, exp_id=exp_id,
                             concurrency=concurrency, requests_per_minute=requests_per_minute, out=out,
                             model=settings.model if settings else options.agent,
                             host=None if settings else AGENT_HOST, specs=specs)


def run_task(store: RunStore, exp_id: str, settings: EndpointSettings | None, agent, cancel: threading.Event):
    """The task for a stored run: the built-in tool agent, the user's agent object, or the bare endpoint."""
    options = BENCHMARK.make_options(store.experiment(exp_id)["config"].get("options") or {})
    if options.tools:
        return task(options, store, exp_id, cancel=cancel)
    return GaiaTask(agent=agent) if agent is not None or settings is not None else None


def execute_gaia_run(store: RunStore, exp_id: str, *, settings: EndpointSettings | None = None, agent=None,
                     concurrency: int | None = None, requests_per_minute: float | None = None,
                     cancel: threading.Event | None = None, on_progress: Callable[[Progress], None] | None = None,
                     out: str | Path | None = None) -> dict:
    """Run (or resume) a registered GAIA run with the endpoint or an agent object already loaded."""
    if out:
        store.update_config(exp_id, {**store.experiment(exp_id)["config"], "out": str(out)})
    cancel = cancel or threading.Event()  # shared with the sandbox, so a cancel stops a program in flight
    return lifecycle.execute(store, exp_id, settings, concurrency=concurrency, requests_per_minute=requests_per_minute,
                             cancel=cancel, on_progress=on_progress, task=run_task(store, exp_id, settings, agent, cancel))


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
        **agent_figures(judged),
    }


def agent_figures(judged: list[dict]) -> dict:
    """Model calls per task, how often a tool call failed, and tokens per task."""
    steps = [r["model_steps"] for r in judged]
    results = [result for r in judged for step in (r["trajectory"] or []) for result in (step.get("tool_results") or [])]
    failed = sum(1 for result in results if result.get("error"))
    return {"steps_mean": sum(steps) / len(steps) if steps else None, "steps_median": percentile(steps, 50),
            "tool_calls": len(results), "tool_errors": failed,
            "tool_error_rate": failed / len(results) if results else None,
            "tokens_per_task": sum(r["tokens"] for r in judged) / len(judged) if judged else None}


def run_cost(samples: list, endpoint: dict | None) -> float | None:
    """The run's cost from the prices given with the endpoint (per million tokens); None without them."""
    prices = endpoint or {}
    price_in, price_out = prices.get("price_input_per_m"), prices.get("price_output_per_m")
    if price_in is None and price_out is None:
        return None
    prompt = sum(s.prompt_tokens for s in samples)
    completion = sum(s.completion_tokens for s in samples)
    return round((prompt * (price_in or 0) + completion * (price_out or 0)) / 1_000_000, 6)


def write_gaia_files(folder: Path, experiment: dict, summary: dict, samples: list) -> dict:
    """The leaderboard submission (in task order, answers exactly as given), the task table, the
    guide and the report."""
    rows = task_rows(samples)
    summary["cost"] = run_cost(samples, experiment["config"].get("endpoint"))
    summary["cost_per_task"] = summary["cost"] / len(rows) if summary["cost"] is not None and rows else None
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
        "steps": r["model_steps"], "error": (r["error"] or "")[:200],
    } for r in task_rows(store.samples(exp_id))]
    return pd.DataFrame(rows, columns=["task", "level", "question", "file", "prediction", "truth", "exact", "lenient",
                                       "latency s", "steps", "error"])
