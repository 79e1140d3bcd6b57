"""BFCL's sample table, as the dashboard shows it."""

from __future__ import annotations

import json

from evalui.store.run_store import RunStore


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
