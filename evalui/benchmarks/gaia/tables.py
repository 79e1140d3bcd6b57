"""GAIA's task table, as the dashboard shows it."""

from __future__ import annotations

from evalui.benchmarks.gaia.results import task_rows
from evalui.store.run_store import RunStore


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
