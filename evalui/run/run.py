"""A run as one object. ``prepare`` registers it (or reopens a stored one to resume), asks each
sample as many epochs as it was given, sets its budget, and, first of all, checks that the endpoint
can serve it; it returns the ``Run``, whose methods execute, summarise and export it.

The dashboard and the CLI both start runs here, so both refuse a dead endpoint before anything is
registered, and both treat epochs and budgets alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalui.core import registry
from evalui.core.benchmark import Benchmark
from evalui.core.run_config import RunConfig
from evalui.endpoint.settings import EndpointSettings
from evalui.run import lifecycle
from evalui.run.epochs import add_epochs
from evalui.run.lifecycle import UnknownRun, stored_experiment  # noqa: F401  (UnknownRun: re-exported)
from evalui.run.pricing import set_budget
from evalui.store.run_store import RunStore

PREFLIGHT_MAX_S = 10.0  # the endpoint check waits at most this long (less when the run's own timeout is shorter)


@dataclass
class Run:
    """One stored run of one benchmark: the benchmark is looked up once, here, not at every step."""

    store: RunStore
    exp_id: str
    benchmark: Benchmark
    settings: EndpointSettings | None = None

    @classmethod
    def open(cls, store: RunStore, exp_id: str, settings: EndpointSettings | None = None) -> Run:
        """A stored run, by its id (UnknownRun when there is none)."""
        return cls(store, exp_id, registry.get(stored_experiment(store, exp_id)["benchmark"]), settings)

    @property
    def experiment(self) -> dict:
        """The run's stored row as the store has it now (another worker may have moved it on)."""
        return stored_experiment(self.store, self.exp_id)

    @property
    def config(self) -> RunConfig:
        """The run's stored configuration, typed."""
        return RunConfig.of(self.experiment)

    def options(self):
        return self.benchmark.make_options(self.config.options)

    def execute(self, **kwargs) -> dict:
        """Every unfinished sample, then the exports; the summary (see lifecycle.execute for the keywords)."""
        return lifecycle.execute(self.store, self.exp_id, self.settings, **kwargs)

    def summarise(self, *, duration_s: float | None = None) -> dict:
        """The summary as the store has it now; nothing is written."""
        return lifecycle.summarise(self.store, self.exp_id, duration_s=duration_s)[0]

    def export(self, *, out: str | Path | None = None) -> dict:
        """The run's files written again from the store; its summary."""
        return lifecycle.export(self.store, self.exp_id, out=out)


def check_endpoint(settings: EndpointSettings) -> None:
    """One tiny request that the endpoint answers as an OpenAI-compatible server would; PreflightError
    (a ValueError, one sentence without secrets) when it cannot serve a run."""
    from evalui.endpoint.preflight import probe_endpoint

    probe_endpoint(settings, timeout_s=min(float(settings.timeout_s or PREFLIGHT_MAX_S), PREFLIGHT_MAX_S))


def reopen(store: RunStore, exp_id: str, settings: EndpointSettings | None, *, epochs: int | None = None,
           max_cost_usd: float | None = None, check: bool = True) -> Run:
    """A stored run, to resume as it was started: the endpoint checked (``check``), then its epochs
    (None: as stored) and a new budget (None: keep its own)."""
    run = Run.open(store, exp_id, settings)
    if check and settings is not None:
        check_endpoint(settings)
    if run.benchmark.epochs:
        add_epochs(store, exp_id, epochs)
    set_budget(store, exp_id, max_cost_usd)
    return run


def prepare(store: RunStore, benchmark: Benchmark, options, settings: EndpointSettings | None, *,
            epochs: int | None = None, max_cost_usd: float | None = None, check: bool = True,
            **registration) -> Run:
    """Check the options, then the endpoint (``check``), then register the run or reopen it, add its
    epochs and set its budget.

    ``epochs``: how many times each sample is asked (None: as stored, else 1); ``max_cost_usd``: stop
    when the run's cost reaches it. ``registration``: lifecycle.prepare's keywords (exp_id,
    concurrency, requests_per_minute, out, model, host, specs)."""
    checked = (lambda: check_endpoint(settings)) if check and settings is not None else None
    exp_id = lifecycle.prepare(store, benchmark, options, settings, before_register=checked, **registration)
    if benchmark.epochs:
        add_epochs(store, exp_id, epochs)
    elif epochs not in (None, 1):
        raise ValueError(f"{benchmark.name} runs each sample once; it has no epochs")
    set_budget(store, exp_id, max_cost_usd)
    return Run(store, exp_id, benchmark, settings)
