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
                     requests_per_minute: float | None = None, out: str | Path | None = None, web_search: str = "",
                     web_record: str | Path | None = None, web_replay: str | Path | None = None) -> str:
    """Register the run and its samples (an existing exp_id resumes, adopting a changed selection)."""
    from evalui.engine import local_model

    if settings.model == local_model.MODEL_NAME and mode not in local_model.MODES:
        raise ValueError(f"the local model ({local_model.MODEL_NAME}) has no function-calling format and supports "
                         "BFCL's prompt mode only: choose prompt mode")
    options = BfclOptions(categories=expand_categories(categories), limit=limit or None, mode=mode,
                          web_search=web_search, web_record=str(web_record or ""), web_replay=str(web_replay or ""))
    check_agentic_backends(options)
    return lifecycle.prepare(store, BENCHMARK, options, settings, exp_id=exp_id, concurrency=concurrency,
                             requests_per_minute=requests_per_minute, out=out)


def check_agentic_backends(options: BfclOptions) -> None:
    """Refuse, before anything is registered, a run whose memory or web backends cannot be built here."""
    from evalui.benchmarks.bfcl.agentic.backends import BackendUnavailable, memory_class
    from evalui.benchmarks.bfcl.scoring.single_turn import MEMORY_CATEGORIES, WEB_SEARCH_CATEGORIES
    from evalui.errors import InputError

    for category in set(options.categories) & set(MEMORY_CATEGORIES):
        try:
            memory_class(category)
        except BackendUnavailable as exc:
            raise InputError(str(exc)) from None
    if set(options.categories) & set(WEB_SEARCH_CATEGORIES):
        from evalui.benchmarks.bfcl.agentic.web_search import check_web_options

        check_web_options(options.web_options())


def expand_categories(categories: list[str]) -> list[str]:
    """The categories asked for, ``all`` standing for the whole leaderboard set (BFCL v4's overall score)."""
    from evalui.benchmarks.bfcl.scoring.leaderboard import LEADERBOARD_CATEGORIES

    chosen: list[str] = []
    for category in (c.strip() for c in categories):
        for name in (LEADERBOARD_CATEGORIES if category == "all" else (category,) if category else ()):
            if name not in chosen:
                chosen.append(name)
    return chosen


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
