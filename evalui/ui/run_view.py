"""Pieces every launcher tab shows: a progress line, the live log, and the list of stored runs."""

from __future__ import annotations

from evalui.engine.background import background_runs
from evalui.engine.store import RunStore

SUCCESS_WORDS = {"aime-generate": "valid", "aime-judge": "pass (≥ 3.5)", "aime-winrate": "wins"}


def status_line(store: RunStore, exp_id: str | None) -> str:
    if not exp_id:
        return "No run selected."
    experiment = store.experiment(exp_id)
    if experiment is None:
        return f"No run named `{exp_id}`."
    counts = store.progress(exp_id)
    run = background_runs().get(exp_id)
    status = "running" if run and run.running else experiment["status"]
    share = counts["correct"] / counts["judged"] if counts["judged"] else 0.0
    # What a "correct" sample means differs by task.
    word = SUCCESS_WORDS.get(experiment["benchmark"], "correct")
    return (
        f"**{exp_id}** · {status} · {counts['judged']}/{counts['total']} done · "
        f"{counts['correct']} {word} ({share:.1%}) · {counts['errors']} errors · {counts['tokens']} tokens"
    )


def log_text(exp_id: str | None) -> str:
    run = background_runs().get(exp_id) if exp_id else None
    return "\n".join(run.log) if run else ""


def run_choices(store: RunStore, benchmark: str) -> list[tuple[str, str]]:
    choices = []
    for experiment in store.experiments(benchmark or None):
        run = background_runs().get(experiment["exp_id"])
        status = "running" if run and run.running else experiment["status"]
        choices.append((f"{experiment['exp_id']} · {experiment['model']} · {status}", experiment["exp_id"]))
    return choices


def is_running(exp_id: str | None) -> bool:
    run = background_runs().get(exp_id) if exp_id else None
    return bool(run and run.running)


def finished_summary(store: RunStore, exp_id: str, export) -> dict | None:
    """The summary of a run that is not going; ``export`` writes it first for a run that stopped
    (crash, kill) before its exports were written. None while the run goes or before any answer."""
    experiment = store.experiment(exp_id)
    if experiment is None or is_running(exp_id):
        return None
    if not experiment.get("summary") and store.progress(exp_id)["judged"]:
        export(store, exp_id)
        experiment = store.experiment(exp_id)
    return experiment.get("summary")
