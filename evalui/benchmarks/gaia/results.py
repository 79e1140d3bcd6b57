"""A GAIA run's figures and files from its stored samples: the task table, the summary over scored
tasks, the cost per task, and the exports (submission, task table, guide, report). The spec's summarise and
export hooks call these; the run's entry points (run.py) sit above the spec."""

from __future__ import annotations

from pathlib import Path

from evalui.benchmarks.gaia.report import write_gaia_report, write_submission_guide
from evalui.benchmarks.gaia.task import question_from_payload
from evalui.jsonl import write_jsonl
from evalui.stats.clustered import by_sample, cluster_key, clustered_accuracy, clustered_accuracy_by
from evalui.stats.metrics import accuracy, level_drop_rates, percentile


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
    # Clustered by task: a run with epochs answers each task several times (evalui.stats.clustered).
    overall = clustered_accuracy((cluster_key(r["task_id"], by_sample), r["exact"]) for r in scored)
    per_level = clustered_accuracy_by((str(r["level"]), cluster_key(r["task_id"], by_sample), r["exact"]) for r in scored)
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


def write_gaia_files(folder: Path, experiment: dict, summary: dict, samples: list) -> dict:
    """The leaderboard submission (in task order, answers exactly as given), the task table, the
    guide and the report."""
    rows = task_rows(samples)
    # The run's cost is the lifecycle's (evalui.run.pricing: the run's prices, a prices file or the table).
    cost = (summary.get("cost") or {}).get("usd")
    summary["cost_per_task"] = cost / len(rows) if cost is not None and rows else None
    submission = folder / "submission.jsonl"
    write_jsonl(submission, ({"task_id": r["task_id"], "model_answer": r["model_answer"] or "",
                              "reasoning_trace": r["response"]} for r in rows if r["stage"] == "judged"))
    write_jsonl(folder / "tasks.jsonl", rows)
    summary.update(submission=str(submission), guide=str(write_submission_guide(folder, summary)))
    summary["report"] = str(write_gaia_report(folder, experiment, summary, rows))
    return {"submission": submission, "tasks": folder / "tasks.jsonl", "guide": Path(summary["guide"]),
            "report": Path(summary["report"])}
