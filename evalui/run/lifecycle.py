"""One run lifecycle for every benchmark: prepare → execute → export → summarise → resume.

``prepare`` registers a run (or reopens it to resume), ``execute`` runs its unfinished samples
and then ``export`` writes what every run has (``samples.jsonl`` with the trajectories and
``summary.json`` with provenance) plus the benchmark's own files. Resuming is ``prepare`` with the
run's id followed by ``execute``; the run's concurrency and RPM are stored and reused.

On resume the whole config is compared. Options the benchmark declares ``fixed`` (finished
samples depend on them) must be equal, or the resume is refused with a message naming them. Any
other change, such as a larger category selection, is adopted: its samples are added, the stored
config is updated, and the exports cover every group that has samples.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import platform
import subprocess
import threading
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

from evalui.core.benchmark import Benchmark, SampleSpec
from evalui.core.record import RunSummary, SampleRecord
from evalui.core.run_config import RunConfig
from evalui.endpoint.settings import EndpointSettings
from evalui.jsonl import write_jsonl
from evalui.run import epochs, events, findings, pricing
from evalui.run.experiment import check_exp_id, new_exp_id, run_folder, summary_of
from evalui.run.phases import RunPhases
from evalui.run.runner import SHARED, Progress, run_experiment
from evalui.run.task import Task
from evalui.store.run_store import RunStore

LOCAL_HOST = "local"
AGENT_HOST = "local agent"  # the host of a run that the user's own agent answered
DEFAULT_CONCURRENCY = 8


class ChangedRun(ValueError):
    """A resume with options that the finished samples depend on."""


class UnknownRun(ValueError):
    """No stored run has this id."""


def stored_experiment(store: RunStore, exp_id: str) -> dict:
    """The run's stored row; UnknownRun when there is none."""
    experiment = store.experiment(exp_id)
    if experiment is None:
        raise UnknownRun(f"no stored run {exp_id!r}")
    return experiment


def _benchmark(name: str) -> Benchmark:
    from evalui.core.registry import get

    return get(name)


def prepare(store: RunStore, benchmark: Benchmark, options, settings: EndpointSettings | None, *,
            exp_id: str | None = None, concurrency: int | None = None, requests_per_minute: float | None = None,
            out: str | Path | None = None, model: str | None = None, host: str | None = None,
            specs: list | None = None, before_register: Callable[[], None] | None = None) -> str:
    """Register a run and its samples; with the id of a stored run, reopen it to resume. Returns the id.

    ``specs`` are samples the caller already selected (a tab that loaded an upload); by default the
    benchmark selects them from the options. ``before_register`` runs once the options are checked
    and the samples selected, before anything is written (the endpoint check)."""
    if benchmark.needs_endpoint and settings is None:
        raise ValueError(f"{benchmark.name} needs an endpoint")
    exp_id = check_exp_id(exp_id) if exp_id else None
    existing = store.experiment(exp_id) if exp_id else None
    stored_config = RunConfig.of(existing) if existing else None
    stored_options = stored_config.options if stored_config else None
    options, notes = benchmark.check(options, settings, stored_options)
    agent = None if settings else benchmark.answered_by(options)
    model = model or (settings.model if settings else agent or "")
    host = host or (AGENT_HOST if agent else None)
    exp_id = exp_id or new_exp_id(benchmark.name, model)
    values = options.model_dump()
    specs = [SampleSpec(*spec) for spec in (benchmark.samples(options) if specs is None else specs)]
    if not specs:
        raise ValueError("nothing to run: the selection has no samples")
    if before_register is not None:
        before_register()
    config = RunConfig(options=values, endpoint=settings.public() if settings else None, concurrency=concurrency,
                       requests_per_minute=requests_per_minute, out=str(out) if out else None,
                       # The price the run is costed at (evalui.run.pricing); its budget is set apart (set_budget).
                       pricing=pricing.resolve(model, settings.price_input_per_m, settings.price_output_per_m)
                       if settings else None, max_cost_usd=None, **notes)
    if existing and stored_config is not None:
        if existing["benchmark"] != benchmark.name:
            raise ValueError(f"exp_id {exp_id!r} holds a {existing['benchmark']} run, not {benchmark.name}")
        stored = stored_config.options
        changed = [k for k in benchmark.fixed if k in stored and stored[k] != values.get(k)]
        if changed:
            raise ChangedRun(f"exp_id {exp_id!r} was run with " + ", ".join(
                f"{k}={stored[k]!r}" for k in changed) + " and finished samples depend on it; "
                "it cannot be resumed with " + ", ".join(f"{k}={values.get(k)!r}" for k in changed))
        # What was not given again is what the run was started with; so is its price, unless prices
        # are given with the resume (a table's price looked up again does not replace the run's own).
        if (config.pricing or {}).get("priced_by") != "run" and pricing.usable(stored_config.pricing):
            config.pricing = None
        for key in ("out", "concurrency", "requests_per_minute", "max_cost_usd", "pricing"):
            if getattr(config, key) is None:
                setattr(config, key, getattr(stored_config, key))
        store.update_config(exp_id, config.dump())
    else:
        config.concurrency = config.concurrency or benchmark.default_concurrency
        store.create_or_get_experiment(exp_id, benchmark.name, model, host or (settings.host if settings else LOCAL_HOST),
                                       config.dump())
    store.add_samples(exp_id, specs)
    return exp_id


def execute(store: RunStore, exp_id: str, settings: EndpointSettings | None, *, client=None,
            concurrency: int | None = None, requests_per_minute: float | None = None,
            cancel: threading.Event | None = None, on_progress: Callable[[Progress], None] | None = None,
            task: Task | None = None, phases: RunPhases | None = None) -> dict:
    """Run every unfinished sample of a prepared run, then export it; returns the summary.
    ``phases``: an evalui.run.phases.RunPhases that the run marks (a command's timings)."""
    experiment = stored_experiment(store, exp_id)
    benchmark = _benchmark(experiment["benchmark"])
    config = RunConfig.of(experiment)
    options = benchmark.make_options(config.options)
    # Shared with a task that runs programs (GAIA's sandbox), so a cancel stops one in flight.
    cancel = cancel or threading.Event()
    own_task = task is None  # a task made here is closed here; a caller's own task is the caller's to close
    task = task or make_task(benchmark, options, store, exp_id, cancel)
    try:
        final, started, on_demand = _run(store, exp_id, epochs.with_epochs(task, config), config, settings,
                                         client=client, concurrency=concurrency,
                                         requests_per_minute=requests_per_minute, cancel=cancel,
                                         on_progress=on_progress, phases=phases)
    finally:
        close = getattr(task, "close", None) if own_task else None
        if callable(close):  # a task that holds processes (BFCL's call workers) stops them
            close()
    duration_s = time.perf_counter() - started
    if not writes_exports(store, exp_id, final.message, on_demand):
        return summarise(store, exp_id, duration_s=duration_s)[0]
    summary = export(store, exp_id, duration_s=duration_s)
    events.run_finished(exp_id)
    return summary


def _run(store: RunStore, exp_id: str, task: Task, config: RunConfig, settings: EndpointSettings | None, *, client,
         concurrency: int | None, requests_per_minute: float | None, cancel: threading.Event,
         on_progress: Callable[[Progress], None] | None, phases: RunPhases | None = None) -> tuple[Progress, float, bool]:
    """Every unfinished sample through ``task``: the runner's outcome, the time it started, and
    whether nothing was left to ask (a request to write the exports again)."""
    from evalui.endpoint.client import ModelClient

    if client is None and settings is not None:
        client = ModelClient(settings)
    started = time.perf_counter()
    meter = None
    if config.pricing and pricing.usable(config.pricing):
        meter = pricing.CostMeter.for_run(store.samples(exp_id), config.pricing, config.max_cost_usd)
    counts = store.progress(exp_id)
    final = run_experiment(store, exp_id, task, client,
                           concurrency=concurrency or config.concurrency or DEFAULT_CONCURRENCY,
                           requests_per_minute=requests_per_minute or config.requests_per_minute,
                           cancel=cancel, on_progress=on_progress, secrets=settings.secrets() if settings else [],
                           meter=meter, phases=phases)
    return final, started, counts["judged"] == counts["total"]


def make_task(benchmark: Benchmark, options, store: RunStore, exp_id: str, cancel: threading.Event) -> Task:
    """The benchmark's task for this run; a factory that takes ``cancel`` is given the run's."""
    factory: Callable[..., Task] = benchmark.task  # (options, store, exp_id[, cancel=])
    if "cancel" in inspect.signature(factory).parameters:
        return factory(options, store, exp_id, cancel=cancel)
    return factory(options, store, exp_id)


def writes_exports(store: RunStore, exp_id: str, message: str, on_demand: bool) -> bool:
    """Whether this worker writes the run's summary and exports: once, by the worker that judged
    the last sample; by the last worker to stop a run that did not finish; or on demand."""
    if message == SHARED:
        return False  # other workers still run it; the last of them writes
    experiment = stored_experiment(store, exp_id)
    if experiment["stored_status"] != "finished" or on_demand:
        return True
    return experiment.get("finished_by") in (None, store.worker_on(exp_id))


def summarise(store: RunStore, exp_id: str, *, duration_s: float | None = None) -> tuple[dict, list]:
    """The run's summary as the store has it now, with its samples; nothing is written."""
    experiment = stored_experiment(store, exp_id)
    benchmark = _benchmark(experiment["benchmark"])
    samples = store.samples(exp_id)
    config = RunConfig.of(experiment)
    own = config.out or experiment.get("out_dir") if benchmark.out_is_run_folder else None
    folder = run_folder(exp_id, own)
    summary = summary_of(exp_id, samples, benchmark.cluster_of)
    summary[f"by_{benchmark.group_name}"] = summary.pop("by_group")
    summary.update(benchmark=benchmark.name, model=experiment["model"], status=experiment["status"],
                   duration_s=duration_s if duration_s is not None else (experiment.get("summary") or {}).get("duration_s"),
                   out_dir=str(folder))
    summary.update(benchmark.summarise(samples, summary))
    summary.update(epochs.summary_figures(samples, config))
    # Beside the raw figures, never in their place: what the validity scanners found (evalui.run.findings).
    summary["validity"] = findings.validity(samples, findings.scan(store, experiment, samples), folder,
                                            benchmark.cluster_of)
    summary["cost"] = pricing.run_cost(samples, config.pricing)
    if config.max_cost_usd is not None:
        summary["cost"]["max_cost_usd"] = config.max_cost_usd
    label, value = benchmark.headline(summary)
    summary["headline"] = {"label": label, "value": value}
    return summary, samples


def export(store: RunStore, exp_id: str, *, duration_s: float | None = None, out: str | Path | None = None) -> dict:
    """Write the run's exports from the store (samples read once) and record its summary; ``out``:
    a folder for them from now on."""
    if out:
        config = RunConfig.of(stored_experiment(store, exp_id))
        config.out = str(out)
        store.update_config(exp_id, config.dump())
    summary, samples = summarise(store, exp_id, duration_s=duration_s)
    findings.keep(store, exp_id, samples)
    experiment = stored_experiment(store, exp_id)
    benchmark = _benchmark(experiment["benchmark"])
    folder = Path(summary["out_dir"])
    config = RunConfig.of(experiment)
    price = pricing.usable(config.pricing)
    write_jsonl(folder / "samples.jsonl", (sample_record(s, price) for s in samples))
    files = benchmark.export(folder, experiment, summary, samples)
    summary["files"] = {name: str(path) for name, path in files.items()}
    summary["provenance"] = provenance(benchmark.data_files(benchmark.make_options(config.options)),
                                       benchmark.upstream_packages)
    summary["provenance"]["prices"] = price  # the price every cost figure used, and where it came from
    summary = RunSummary.model_validate(summary).dump()  # typed and versioned: schemas/run_summary.schema.json
    (folder / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    store.set_status(exp_id, experiment["status"], summary=summary, out_dir=summary["out_dir"])
    return summary


def resume(store: RunStore, exp_id: str, settings: EndpointSettings | None, **options) -> dict:
    """Run the unfinished samples of a stored run with its stored options, concurrency and RPM."""
    return execute(store, exp_id, settings, **options)


def sample_record(sample, price: dict | None = None) -> dict:
    """One line of samples.jsonl: what was asked, answered and judged, and every step, validated
    against evalui.core.record.SampleRecord (schemas/sample_record.schema.json); with the run's
    price, what the sample cost."""
    record = SampleRecord.of(sample)
    if price:
        record.cost_usd = pricing.sample_cost(price, sample.prompt_tokens, sample.completion_tokens)
    return record.dump()


def provenance(files: list[Path], packages: tuple[str, ...] = ()) -> dict:
    """What produced a summary: evalui's, the benchmark's upstream ``packages``' and Python's versions,
    the git revision, and a hash of each dataset file used."""
    from importlib import metadata

    def version(package: str) -> str | None:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    hashes = {}
    for path in files:
        path = Path(path)
        if path.is_file():
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            hashes[f"{path.parent.name}/{path.name}"] = f"sha256:{digest.hexdigest()}"
    return {"evalui": version("evalui"), "packages": {name: version(name) for name in packages},
            "python": platform.python_version(),
            "git_revision": git_revision(), "datasets": hashes}


@cache
def git_revision() -> str | None:
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True,
                              text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None
