"""Epochs at the lifecycle's edge: the store keeps one row per (sample, epoch) under an epoch-folded
id (evalui.stats.epochs), and tasks see the sample's own id, so no benchmark knows about epochs."""

from __future__ import annotations

import dataclasses
from typing import Any

from evalui.core.run_config import RunConfig
from evalui.run.task import Task
from evalui.stats.epochs import epoch_figures, epoch_id


def add_epochs(store, exp_id: str, epochs: int | None) -> int:
    """Ask each sample of a prepared run ``epochs`` times (stored in its config, kept on resume).
    Returns the run's epochs."""
    experiment = store.experiment(exp_id)
    # The samples say how many epochs the run has; a resume's prepare rewrites the config. Read
    # whole only when epochs are added: a run of one epoch reads none of them here.
    stored = store.max_epoch(exp_id)
    if epochs is None:
        epochs = stored
    if epochs < 1:
        raise ValueError("--epochs must be at least 1")
    if epochs != stored and stored > 1:
        raise ValueError(f"exp_id {exp_id!r} was run with {stored} epochs; it cannot be resumed with {epochs}")
    if epochs > 1:
        firsts = [s for s in store.samples(exp_id) if s.epoch == 1]
        store.add_samples(exp_id, [(epoch_id(s.sample_id, k), s.group, s.payload)
                                   for k in range(2, epochs + 1) for s in firsts])
        config = RunConfig.of(experiment)
        if config.epochs != epochs:
            config.epochs = epochs
            store.update_config(exp_id, config.dump())
    return epochs


def as_asked(value: object) -> object:
    """A stored sample (or a list of them) under its own id, as its task and scorers see it:
    ``x#e3`` is ``x``."""
    if isinstance(value, list):
        return [as_asked(v) for v in value]
    own = getattr(value, "own_id", None)
    if isinstance(own, str) and dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, sample_id=own)
    return value


class EpochTask:
    """The benchmark's task, shown each sample under its own id (``x#e3`` is asked as ``x``)."""

    _WITH_SAMPLES = ("build_request", "call", "acall", "judge", "ajudge", "judge_job", "fixed_request", "prepare")

    def __init__(self, task: Task):
        self._task = task

    _own = staticmethod(as_asked)

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._task, name)  # AttributeError when the task has no such hook, as the runner expects
        if name not in self._WITH_SAMPLES or not callable(found):
            return found

        def with_own_ids(*args: object, **kwargs: object) -> Any:
            return found(*(self._own(a) for a in args), **kwargs)
        return with_own_ids


def with_epochs(task: Task, config: RunConfig) -> Task:
    return EpochTask(task) if int(config.epochs or 1) > 1 else task


def summary_figures(samples: list, config: RunConfig) -> dict:
    """``{"epochs": …}`` for a run with epochs (errors and unfinished samples never pass), else nothing."""
    epochs = int(config.epochs or 1)
    if epochs < 2:
        return {}
    outcomes = [(s.sample_id, s.stage == "judged" and bool(s.correct)) for s in samples
                if (s.verdict or {}).get("scored") is not False]
    return {"epochs": epoch_figures(outcomes, epochs)}
