"""Pieces every launcher tab shows: a progress line, the live log, and the list of stored runs."""

from __future__ import annotations

from evalui.core import registry
from evalui.core.run_config import RunConfig
from evalui.reports.markdown import epoch_texts, inert
from evalui.run.background import background_runs
from evalui.run.pricing import unpriced
from evalui.store.run_store import RunStore
from evalui.ui.web.access import say

STATES = ("running", "cancelling", "cancelled", "finished", "incomplete", "interrupted", "failed", "created",
          "budget_spent")


def success_word(benchmark: str) -> str:
    """What a successful sample is called in its own task (a generated problem is valid, a judged one
    passes), in the visitor's language where strings.py has the word."""
    from evalui.ops.history import spec_of
    from evalui.ui.i18n.strings import STRINGS

    spec = spec_of(benchmark)
    word = spec.verdict_words[0] if spec else "correct"
    key = {"win": "word.wins"}.get(word, f"word.{word}")
    return say(key) if key in STRINGS else word


def run_state(store: RunStore, exp_id: str, experiment: dict | None = None) -> str:
    """running / cancelling while this process runs it, else the store's word for it."""
    run = background_runs().get(exp_id)
    if run and run.running:
        return "cancelling" if run.cancel.is_set() else "running"
    experiment = experiment or store.experiment(exp_id) or {}
    return experiment.get("status") or "created"


def state_word(state: str) -> str:
    return say(f"state.{state}") if state in STATES else state


def scored_count(store: RunStore, exp_id: str, benchmark: str, judged: int) -> int:
    """How many judged samples have a known answer: a benchmark may hide some (its spec's ``hidden_answers``)."""
    spec = registry.find(benchmark)
    if spec is None or not spec.hidden_answers:
        return judged
    return sum(1 for s in store.samples(exp_id, stages=("judged",)) if (s.verdict or {}).get("scored", True))


def status_line(store: RunStore, exp_id: str | None) -> str:
    if not exp_id:
        return say("run.none")
    experiment = store.experiment(exp_id)
    if experiment is None:  # the id may be anything an API caller sent
        return say("msg.no_such_run", exp_id=inert(exp_id))
    counts = store.progress(exp_id)
    scored = scored_count(store, exp_id, experiment["benchmark"], counts["judged"])
    rejected = rejected_count(store, exp_id, experiment["benchmark"], counts["errors"])
    if counts["judged"] and not scored:
        outcome = say("msg.unscored")
    else:
        # A rejected attempt counts against the share: 1 valid problem of 8 asked is 12.5 %, not 100 %.
        share = counts["correct"] / (scored + rejected) if scored + rejected else 0.0
        word = success_word(experiment["benchmark"])
        outcome = say("msg.outcome", count=counts["correct"], word=word, share=f"{share:.1%}")
    state = run_state(store, exp_id, experiment)
    validity = validity_note(experiment, state) if scored else ""  # no valid share of answers nobody can score
    return say("msg.status", exp_id=exp_id, status=state_word(state), judged=counts["judged"], total=counts["total"],
               outcome=outcome, errors=counts["errors"] - rejected, tokens=counts["tokens"]) \
        + (say("msg.rejected", n=rejected) if rejected else "") + validity \
        + epochs_note(experiment, state) + cost_note(experiment, state)


def rejected_count(store: RunStore, exp_id: str, benchmark: str, errors: int) -> int:
    """Failures that are the model's output refused by the task's checks after its retries (the spec's
    ``rejection_kind``), not the endpoint failing: said apart from errors."""
    spec = registry.find(benchmark)
    kind = spec.rejection_kind if spec is not None else None
    if not kind or not errors:
        return 0
    return sum(1 for row in store.sample_rows(exp_id, verdict="error") if row.error.startswith(f"{kind}:"))


def percent(value) -> str:
    return "–" if value is None else f"{value:.1%}"


def validity_note(experiment: dict, state: str) -> str:
    """The raw accuracy with its 95 % interval and, beside it (never in its place), the valid-sample
    score of the samples no validity scanner found invalid, from the run's summary."""
    summary = experiment.get("summary") or {}
    validity = summary.get("validity")
    if state in ("running", "cancelling") or not validity or summary.get("accuracy") is None:
        return ""
    raw_low, raw_high = (list(summary.get("ci95") or []) + [None, None])[:2]
    valid_low, valid_high = (list(validity.get("valid_ci95") or []) + [None, None])[:2]
    return say("msg.validity", raw=percent(summary["accuracy"]), raw_ci=_interval(raw_low, raw_high),
               valid=percent(validity.get("valid_accuracy")), valid_ci=_interval(valid_low, valid_high),
               invalid=validity.get("invalid", 0))


def _interval(low, high) -> str:
    # An undefined interval is left out, never shown as "[–––]".
    return "" if low is None or high is None else f" [{percent(low)}–{percent(high)}]"


def cost_note(experiment: dict, state: str) -> str:
    """What a run that stopped cost (and its budget), from its summary; a running run's is in its progress bar."""
    summary = experiment.get("summary") or {}
    cost = summary.get("cost") or {}
    if state in ("running", "cancelling") or "cost" not in summary:
        return ""
    if unpriced(cost):
        return say("msg.unpriced")
    per_correct = cost.get("per_correct_usd")
    note = say("msg.cost", usd=f"{cost['usd']:.4f}", per_correct="–" if per_correct is None else f"{per_correct:.4f}")
    budget = RunConfig.of(experiment).max_cost_usd
    return note + (say("msg.budget", budget=f"{budget:.4f}") if budget is not None else "")


def epochs_note(experiment: dict, state: str) -> str:
    """The repeats' figures of a run that asked each sample several times, once its summary is written."""
    figures = (experiment.get("summary") or {}).get("epochs")
    if state in ("running", "cancelling") or not figures or figures.get("mean_accuracy") is None:
        return ""
    mean, stderr, passes = epoch_texts(figures)
    return say("msg.epochs", epochs=figures["epochs"], mean=mean, stderr=stderr, passes=passes)


def log_text(exp_id: str | None) -> str:
    run = background_runs().get(exp_id) if exp_id else None
    return "\n".join(run.log) if run else ""


def run_choices(store: RunStore, benchmark: str) -> list[tuple[str, str]]:
    return [(f"{e['exp_id']} · {e['model']} · {state_word(run_state(store, e['exp_id'], e))}", e["exp_id"])
            for e in store.experiments(benchmark or None)]


def is_running(exp_id: str | None) -> bool:
    run = background_runs().get(exp_id) if exp_id else None
    return bool(run and run.running)


def latest_running(store: RunStore, benchmark: str) -> str | None:
    """The most recently started run of ``benchmark`` that this process is running."""
    runs = [background_runs().get(i) for i in background_runs().running_ids()]
    mine = [r for r in runs if r and (e := store.experiment(r.exp_id)) and e["benchmark"] == benchmark]
    return max(mine, key=lambda r: r.started_at).exp_id if mine else None


def finished_summary(store: RunStore, exp_id: str) -> dict | None:
    """The summary of a run that is not going. A run that stopped (crash, kill) before its exports
    were written is summarised from the store, and nothing is written: a view never writes (its
    files come back when it is resumed, or with ``evalui export``). None while the run goes or
    before any answer."""
    from evalui.run.run import Run

    experiment = store.experiment(exp_id)
    if experiment is None or is_running(exp_id):
        return None
    if not experiment.get("summary") and store.progress(exp_id)["judged"]:
        return Run.open(store, exp_id).summarise()
    return experiment.get("summary")
