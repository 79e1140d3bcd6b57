"""A GAIA run from start to exports (submission, guide, report, charts), shared by CLI and UI."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.results import task_rows
from evalui.benchmarks.gaia.spec import BENCHMARK, GaiaOptions, check, task
from evalui.benchmarks.gaia.task import GaiaTask, sample_specs
from evalui.engine import lifecycle
from evalui.engine.runner import Progress
from evalui.engine.settings import EndpointSettings
from evalui.engine.store import RunStore

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
