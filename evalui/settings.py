"""evalui's settings: every generic ``EVALUI_*`` environment variable the code reads.

Each field is one variable (``EVALUI_`` and the field's name in capitals), with its type, its
default and what it does, as the code that reads it has them. A benchmark's own variables are
declared in its package (``evalui/benchmarks/<name>/settings.py``, a ``Settings`` model of the same
kind; ``evalui.benchmarks.settings_models`` finds them). The configuration reference of the docs
(docs/hooks/reference.py) is generated from these models together, and tests/lint/test_reference_docs.py
fails when the package reads a variable no model declares, or declares one nothing reads.

The code reads a variable only through ``read`` (tests/lint/test_settings_reads.py checks it), at
the moment it needs it: tests and the CLI set variables while the process runs, so nothing is
cached. An empty value is an unset one, and a value the field's type or constraints refuse (a
malformed number, ``0`` where ``gt=0``) falls back to the default with a warning that names the
variable and never its value (the value may be a token). Comma-separated lists are declared as
``str`` because that is how they are written; ``read_list`` splits them.
This module imports nothing of evalui: it is the bottom layer, under evalui.config and the rest.
"""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SecretStr, TypeAdapter, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_PREFIX = "EVALUI_"
log = logging.getLogger(__name__)


class Settings(BaseSettings):
    """evalui's environment variables. ``Settings()`` reads them from the environment."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    # Data and the run store
    data_dir: Path = Field(Path("evalui_data"), description=(
        "The data folder: the SQLite run store, run exports, uploads and caches (created on first use; "
        "relative to the working directory)."))
    database_url: str | None = Field(None, description=(
        "The run store: postgresql://user:pw@host/db shares runs between workers and machines, "
        "sqlite:///path puts SQLite there; unset, SQLite in the data folder. The CLI's --database-url sets it."))
    lease_s: float = Field(60.0, gt=0, description=(
        "How long a worker's claim on samples lasts without renewal; the samples of a worker that died "
        "become claimable again after it."))
    search_deadline_s: float = Field(5.0, gt=0, description=(
        "How long one full-text search of a stored run may run before it is stopped with a message."))
    max_input_mb: float = Field(50.0, gt=0, description=(
        "The largest input file evalui reads (JSONL, JSON, uploads), in megabytes; must be positive."))

    # Runs: prices, limits of a model's replies, benchmarks and scanners
    prices: Path | None = Field(None, description=(
        "A prices file (as evalui/data/prices.json) consulted before evalui's own table when a run has no "
        "prices of its own. The CLI's --prices sets it."))
    max_calls_per_step: int | None = Field(None, gt=0, description=(
        "Most tool calls one model step may make before it fails as too_many_calls; unset, the benchmark's "
        "own (64 for function calling)."))
    max_step_bytes: int | None = Field(None, gt=0, description=(
        "Largest model step, in bytes, before it fails as too_large; unset, the benchmark's own "
        "(256 KiB for function calling)."))
    max_sample_bytes: int | None = Field(None, gt=0, description=(
        "Largest sample, all its steps together, in bytes; unset, the benchmark's own (4 MiB for function calling)."))
    max_response_bytes: int = Field(2_000_000, gt=0, description=(
        "Largest reply body read from a model endpoint, in bytes, unless the run's endpoint settings give one."))
    judge_process: Literal["auto", "on", "off"] = Field("auto", description=(
        "Where a run packs and judges the answers whose judge is pure (function calling's single-turn "
        "checker): on, in one child process forked at the run's start, off the event loop that sends the "
        "requests (on Linux, with two CPUs or more); off, on that loop; auto, in the "
        "child when the run has at least 256 such samples and four CPUs or more (on two, the child's CPU "
        "comes out of the core the endpoint and the store need)."))
    benchmarks: str = Field("", description=(
        "Extra benchmarks, comma-separated name=module:attr (the module must be importable); never "
        "replaces a built-in one."))
    scanners: str = Field("", description=(
        "Extra validity scanners, comma-separated name=module:attr; never replaces a built-in one."))

    # Call workers: the processes that run a model's calls on a benchmark's backends, and check result lines
    call_seconds: float = Field(5.0, gt=0, description=(
        "The longest one backend call may run in its worker process before the worker is killed."))
    line_seconds: float = Field(30.0, gt=0, description=(
        "The longest checking one result line (all its calls) may run in a worker process."))
    call_workers: int = Field(2, gt=0, description="Worker processes in one pool of call workers.")
    call_worker_memory_mb: float = Field(2048.0, gt=0, description=(
        "The address-space limit of one call worker process, in megabytes."))

    # The sandbox
    sandbox_cgroup: Path | None = Field(None, description=(
        "A writable cgroup v2 folder, delegated to evalui's user, in which each sandbox task gets a cgroup "
        "(pids and memory bounds); unset, evalui makes evalui-sandbox in the root cgroup where it can."))

    # Web search and fetch (the benchmarks' web tools and web search categories)
    web_search_url: str = Field("", description=(
        "A SearXNG-style JSON search URL with {query} in it, for the benchmarks' web tools and searxng "
        "search providers."))
    web_fetch_deadline_s: float = Field(20.0, gt=0, le=600, description=(
        "The deadline of one web download, redirects included (0 to 600 seconds; others fall back to 20)."))
    web_allow_hosts: str = Field("", description=(
        "Comma-separated host or host:port the web tools may reach although not public (a local search "
        "engine, say)."))

    # Model endpoints and the offline local model
    allowed_hosts: str = Field("", description=(
        "Comma-separated host or host:port that model endpoints may use on a shared deployment although "
        "they are loopback, private or otherwise not public."))
    local_max_tokens: int = Field(128, description=(
        "Tokens the offline local model writes at most in one reply when a request sets no limit."))

    # A shared dashboard: who may do what
    shared: bool = Field(False, description=(
        "Treat this server as shared (as on a Space or with EVALUI_ALLOWED_USERS): endpoint URLs are "
        "checked and visitors' runs capped. app.py sets it behind --auth."))
    allowed_users: str = Field("", description=(
        "Comma-separated user names who may act in the dashboard (and read what is stored unless "
        "EVALUI_PUBLIC_READ); unset, everyone may. Setting it makes the deployment shared."))
    public_read: bool = Field(False, description=(
        "1 (or true, yes) lets visitors who are not in EVALUI_ALLOWED_USERS read stored runs, reports "
        "and reviews."))
    max_runs_per_visitor: int | None = Field(None, description=(
        "Runs one visitor may have going at once (0: no cap); unset, 2 on a shared deployment and no cap "
        "on one's own server."))
    adjudicators: str = Field("", description=(
        "Comma-separated reviewer names who may adjudicate disputed reviews of generated problems; unset, "
        "anyone who may review."))

    # How often an open page re-reads what other processes change
    runs_refresh_s: float = Field(10.0, gt=0, description=(
        "How soon a run stored by another process shows in a tab's stored-runs list, in seconds."))
    files_refresh_s: float = Field(15.0, gt=0, description=(
        "How soon a newly generated problem file shows in the results and verification lists, in seconds."))
    reviews_refresh_s: float = Field(4.0, gt=0, description=(
        "How soon another reviewer's save shows on the problem one has open, in seconds."))

    # The Hugging Face Hub
    hub_probe_s: float = Field(3.0, gt=0, description=(
        "How long the check that the Hugging Face Hub is reachable waits (longer for a slow link)."))
    hub_sync: str = Field("", description=(
        "owner/dataset: the dashboard restores the store and run folders from this private Hub dataset "
        "at start and commits changes to it; unset, no sync."))
    hub_token: SecretStr | None = Field(None, description=(
        "The token of the Hub sync; unset, HF_TOKEN."))
    hub_sync_minutes: float = Field(5.0, gt=0, description=(
        "Minutes between two Hub syncs (there is one at the end of every run too)."))


def env_name(field: str) -> str:
    """The environment variable of a field of Settings (or of a benchmark's, which share the prefix)."""
    return f"{ENV_PREFIX}{field.upper()}"


class SettingError(ValueError):
    """A variable's value that its field refuses; the message names the variable, never the value."""


@functools.cache
def _adapter(model: type[BaseModel], field: str) -> TypeAdapter[Any]:
    # The field's type with its constraints (gt=0, le=600, ...), built once: building is the slow part.
    info = model.model_fields[field]
    form: Any = info.annotation
    if info.metadata:
        form = Annotated[(form, *info.metadata)]
    return TypeAdapter(form)


def parse(field: str, model: type[BaseModel] = Settings) -> Any:
    """The value of ``field`` in the environment now, or its default when unset or empty; SettingError
    when the field's type or constraints refuse it (for a caller that refuses rather than falls back)."""
    info = model.model_fields[field]  # KeyError for a field no model declares: a typo in the caller
    raw = os.environ.get(env_name(field), "").strip()
    if not raw:
        return info.get_default(call_default_factory=True)
    try:
        return _adapter(model, field).validate_python(raw)
    except ValidationError as error:
        # include_input=False and only the messages: the refused value may be a secret.
        why = "; ".join(detail["msg"] for detail in error.errors(include_url=False, include_input=False))
        raise SettingError(f"{env_name(field)} is refused ({why})") from None


def read(field: str, model: type[BaseModel] = Settings) -> Any:
    """The value of ``field`` in the environment now (``model``: Settings, or a benchmark's own);
    its default when unset, empty or refused, with a warning naming the variable when refused."""
    try:
        return parse(field, model)
    except SettingError as error:
        _warn_once(error, os.environ.get(env_name(field), ""))
        return model.model_fields[field].get_default(call_default_factory=True)


def read_list(field: str, model: type[BaseModel] = Settings) -> list[str]:
    """A comma-separated variable's items, stripped, empty ones left out."""
    return [item.strip() for item in str(read(field, model) or "").split(",") if item.strip()]


_warned: set[tuple[str, int]] = set()


def _warn_once(error: SettingError, raw: str) -> None:
    # Read on every page refresh, a bad value would warn every few seconds: once per value is enough.
    # Only the value's hash is kept, so no secret lingers here either.
    key = (str(error), hash(raw))
    if key not in _warned:
        _warned.add(key)
        log.warning("%s; using its default", error)


def variables() -> dict[str, str]:
    """Every declared environment variable, mapped to its field's name, in declaration order."""
    return {env_name(name): name for name in Settings.model_fields}
