"""BFCL execution and checking in a worker process (evalui.sandbox.call_worker).

The parent keeps what is cheap and safe (decoding, name and argument checks); everything that
runs a model's call on bfcl-eval's backends happens in the worker: the conversation's backend
instances (a *session* per sample, kept by the worker and rebuilt from the session's history if
the worker was replaced) and the official checker, which executes the model's calls and the gold
ones again. Uploaded result files are checked there too, single-turn lines included, so that a
deadline per line is enforced rather than checked between lines. A call or a check past its
deadline fails with ``call_timeout`` or ``execution_timeout``; the run and the server go on.

A run has workers of its own (``RunWorkers``), so a hostile sample that keeps its worker busy until
every deadline slows only its own run; and one sample's calls together get a budget
(``sample_call_budget_s``): past it the conversation stops with ``too_slow``. Uploaded files
scored outside a run use the process's shared workers.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from evalui.benchmarks.bfcl import settings as bfcl_settings
from evalui.benchmarks.bfcl.data import BfclEntry
from evalui.benchmarks.bfcl.scoring.execution_text import refusal_text
from evalui.benchmarks.bfcl.scoring.multi_turn import DecodedCall, MultiTurnVerdict, allowed_names, public_methods
from evalui.benchmarks.bfcl.scoring.single_turn import BfclVerdict
from evalui.sandbox.call_worker import (
    WorkerFailed,
    WorkerPool,
    WorkerTimeout,
    call_limit_s,
    line_limit_s,
    shared_pool,
    workers_per_pool,
)

HANDLER = "evalui.benchmarks.bfcl.isolated:handle"
# What the fork server imports once, so that a new worker starts with the checker's modules loaded.
# Not the AST checker itself: imported by name, it would load bfcl-eval's model registry and every
# provider SDK (seconds of CPU in each process's fork server; bench/RESULTS.md). A worker loads it at "warm" through
# load_official, which shows it the registry stand-in (evalui.benchmarks.bfcl.registry).
PRELOAD = ("evalui.benchmarks.bfcl.isolated", "evalui.benchmarks.bfcl.scoring.single_turn", "evalui.benchmarks.bfcl.scoring.multi_turn",
           "bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker", "bfcl_eval.model_handler.utils", "bfcl_eval.utils")
# bfcl-eval reads its own BFCL_* variables (its project root, say): the workers get them too.
ENV = ("BFCL_",)
PROVIDER_SDKS = ("anthropic", "openai", "google", "qwen_agent", "cohere", "mistralai")


def _pool():
    from evalui.benchmarks.bfcl.scoring.official import set_project_root

    set_project_root()  # before the fork server imports bfcl-eval, which makes folders under it
    return shared_pool(HANDLER, PRELOAD, ENV)


def sample_call_budget_s() -> float:
    """The time one sample's calls may take together, replays included (EVALUI_SAMPLE_CALL_SECONDS,
    default 15 s: three calls stopped at the 5 s call limit). Honest conversations take milliseconds."""
    return bfcl_settings.read("sample_call_seconds")


class RunWorkers:
    """One run's own call workers, stopped when the run ends or is cancelled (a call in flight
    then fails at once instead of running to its deadline)."""

    def __init__(self, cancel: threading.Event | None = None):
        from evalui.benchmarks.bfcl.scoring.official import set_project_root

        set_project_root()
        self.pool = WorkerPool(HANDLER, size=workers_per_pool(), preload=PRELOAD, env=ENV)
        self._closed = threading.Event()
        if cancel is not None:
            threading.Thread(target=self._close_on, args=(cancel,), daemon=True,
                             name="evalui-run-workers-cancel").start()

    def _close_on(self, cancel: threading.Event) -> None:
        while not self._closed.wait(0.2):
            if cancel.is_set():
                self.close()

    def close(self) -> None:
        self._closed.set()
        self.pool.close()


# --- the worker's side -----------------------------------------------------------------------------
_sessions: dict = {}
_timed = False


def _time_backend_calls() -> None:
    """Every public backend method stamps the worker's heartbeat, so the parent can stop one call."""
    global _timed
    if _timed:
        return
    import functools

    from evalui.benchmarks.bfcl.scoring.multi_turn import BACKEND_CLASSES, backend_class, public_methods
    from evalui.sandbox.call_worker_child import timed_call

    def timed(method):
        @functools.wraps(method)
        def run(*args, **kwargs):
            with timed_call(method.__name__):
                return method(*args, **kwargs)
        return run

    for class_name in BACKEND_CLASSES:
        cls = backend_class(class_name)
        for name in public_methods(class_name):
            setattr(cls, name, timed(getattr(cls, name)))
    _timed = True


def _fresh_numeric_contexts() -> None:
    # MathAPI sets mpmath's and decimal's precision process-wide; each check starts from the defaults.
    import decimal

    import mpmath

    mpmath.mp.dps = 15
    decimal.getcontext().prec = 28


def _open(session: str, entry: BfclEntry, history: list, model_name: str = "") -> None:
    from evalui.benchmarks.bfcl.multi_turn.backends import Backends

    backends = Backends(entry, model_name)
    for name, arguments in history:  # the calls already made, replayed on fresh instances
        backends.run(DecodedCall(name, arguments))
    _sessions[session] = backends


def _open_memory(session: str, entry: BfclEntry, snapshot_root: str, history: list, model_name: str) -> dict:
    """A memory backend for ``entry``, its snapshot loaded and the calls already made replayed;
    the names a model may call on it, and every method it has."""
    from evalui.benchmarks.bfcl.agentic.backends import AgenticBackend, new_backend

    backend = AgenticBackend(entry, new_backend(entry, Path(snapshot_root)), model_name)
    for name, arguments in history:
        backend.run(DecodedCall(name, arguments))
    _sessions[session] = backend
    return {"allowed": sorted(backend.allowed), "implemented": sorted(backend.mapping)}


def _memory_op(op: str, session: str, payload):
    from evalui.benchmarks.bfcl.agentic.backends import with_memory_instructions

    backend = _sessions.get(session)
    if backend is None:
        return {"missing_session": True}
    if op == "memory_question":  # bfcl's memory instructions, built from the memory this worker holds
        return {"question": with_memory_instructions(payload, backend.instance).question}
    backend.instance._flush_memory_to_local_file()  # "memory_flush": the snapshot later questions load
    return {}


def handle(op: str, payload):
    _time_backend_calls()
    if op == "warm":  # the checker's imports, done before the first deadline starts
        from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker  # noqa: F401

        from evalui.benchmarks.bfcl.scoring.official import load_official

        load_official()
        return None
    if op == "open":
        _open(*payload)
        return None
    if op == "call":
        session, name, arguments = payload
        backends = _sessions.get(session)
        if backends is None:
            return {"missing_session": True}
        text, error = backends.run(DecodedCall(name, arguments))
        return {"text": text, "error": error}
    if op == "close":
        _sessions.pop(payload, None)
        return None
    if op == "open_memory":
        return _open_memory(*payload)
    if op in ("memory_question", "memory_flush"):
        return _memory_op(op, *payload)
    if op == "score":
        from evalui.benchmarks.bfcl.scoring.multi_turn import score_multi_turn

        _fresh_numeric_contexts()
        entry, ground_truth, result, mode = payload
        return score_multi_turn(entry, ground_truth, result, mode).as_dict()
    if op == "score_single":
        from evalui.benchmarks.bfcl.scoring.single_turn import score_entry

        category, functions, possible_answer, result, underscore_to_dot = payload
        return score_entry(category, functions, possible_answer, result, underscore_to_dot=underscore_to_dot).as_dict()
    if op == "census":
        return _census()
    raise ValueError(f"unknown request {op!r}")


def _census() -> dict:
    """What the worker holds: open sessions, live backend instances, instances the checker left
    behind, and which provider SDKs it (or its fork server) loaded."""
    import gc
    import sys

    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    from evalui.benchmarks.bfcl.scoring.multi_turn import BACKEND_CLASSES, backend_class

    gc.collect()
    classes = tuple(backend_class(c) for c in BACKEND_CLASSES)
    return {"sessions": len(_sessions), "instances": sum(1 for o in gc.get_objects() if isinstance(o, classes)),
            "checker_instances": sum(1 for n in vars(multi_turn_utils) if n.endswith("_instance")),
            "provider_sdks": sorted({name.split(".")[0] for name in sys.modules} & set(PROVIDER_SDKS))}


def census(pool=None) -> list[dict]:
    """``_census`` of every worker of the pool (starting any that is not running)."""
    pool = pool or _pool()
    return [pool.request("census", None, affinity=index, limit_s=line_limit_s()) for index in range(len(pool.workers))]


# --- the server's side -----------------------------------------------------------------------------
def score_isolated(entry: dict, ground_truth: list, result, mode: str | None = None, pool=None) -> dict:
    """The official multi-turn verdict (as a dict), computed in a worker under a per-line deadline."""
    try:
        return (pool or _pool()).request("score", (entry, ground_truth, result, mode), limit_s=line_limit_s())
    except WorkerTimeout as exc:
        kind = "call_timeout" if exc.per_call else "execution_timeout"
        verdict = MultiTurnVerdict(False, kind, f"Checking stopped: {exc}.", f"evalui:{kind}")
    except WorkerFailed as exc:
        verdict = MultiTurnVerdict(False, "execution_failed", f"Checking failed: {exc}.", "evalui:execution_failed")
    return verdict.as_dict()


def score_single_isolated(category: str, functions: list, possible_answer, result, *, underscore_to_dot: bool) -> dict:
    """The official single-turn verdict (as a dict), computed in a worker under a per-line deadline."""
    try:
        return _pool().request("score_single", (category, functions, possible_answer, result,
                                                             underscore_to_dot), limit_s=line_limit_s())
    except WorkerTimeout as exc:
        verdict = BfclVerdict(False, "execution_timeout", f"Checking stopped: {exc}.", "evalui:execution_timeout")
    except WorkerFailed as exc:
        verdict = BfclVerdict(False, "execution_failed", f"Checking failed: {exc}.", "evalui:execution_failed")
    return verdict.as_dict()


class IsolatedBackends:
    """One conversation's backends, living in a worker; ``run`` executes one checked call there."""

    def __init__(self, entry: BfclEntry, pool=None, model_name: str = ""):
        self.entry, self.model_name = entry, model_name
        self.allowed = self._allowed_names()
        self.implemented = self._implemented_names()
        self.pool = pool or _pool()
        self.affinity = self.pool.pick()
        self.session = uuid.uuid4().hex
        self.history: list[tuple[str, dict]] = []
        self.opened = False
        self.spent_s, self.budget_s = 0.0, sample_call_budget_s()

    def _ask(self, op: str, payload, limit_s: float):
        began = time.monotonic()
        try:
            return self.pool.request(op, payload, affinity=self.affinity, limit_s=limit_s)
        finally:
            self.spent_s += time.monotonic() - began

    def run(self, call: DecodedCall) -> tuple[str, str]:
        """(result text, error) of one checked call; a refused call is reported, never sent to run."""
        if call.refused or call.name not in self.allowed:
            return refusal_text(call, self.implemented), "refused"
        if self.spent_s > self.budget_s:
            return (f"Error during execution: too_slow: this sample's calls have taken {self.spent_s:.1f} s, more "
                    f"than the {self.budget_s:g} s allowed; {call.name[:80]!r} was not run."), "too_slow"
        try:
            for _attempt in range(2):
                if not self.opened:
                    # A replay runs calls that each finished in time before: the line's deadline bounds it.
                    self._open_session(min(line_limit_s(), self._left_s()))
                answer = self._ask("call", (self.session, call.name, call.arguments), call_limit_s() + 1.0)
                if not answer.get("missing_session"):
                    break
                self.opened = False  # the worker was replaced since: rebuild the session there
            else:
                raise WorkerFailed("the worker kept losing the conversation's backends")
        except WorkerTimeout as exc:
            self.opened = False
            return f"Error during execution: {exc}.", "call_timeout"
        except WorkerFailed as exc:
            self.opened = False
            return f"Error during execution: {exc}.", "execution_failed"
        self.history.append((call.name, call.arguments))
        return answer["text"], answer["error"]

    def _allowed_names(self) -> frozenset[str]:
        return allowed_names(self.entry.functions, self.entry.missed_function, self.entry.involved_classes)

    def _implemented_names(self) -> frozenset[str]:
        return frozenset().union(*(public_methods(c) for c in self.entry.involved_classes))

    def _open_session(self, limit_s: float) -> None:
        self._ask("open", (self.session, self.entry, self.history, self.model_name), limit_s)
        self.opened = True

    def _left_s(self) -> float:
        return max(1.0, self.budget_s - self.spent_s)

    async def arun(self, call: DecodedCall) -> tuple[str, str]:
        # Waiting on the worker must not hold the event loop other samples run on; the waits get
        # threads of their own, so a slow call cannot take the loop's default executor from others.
        return await asyncio.get_running_loop().run_in_executor(_waiting_threads(), self.run, call)

    def close(self) -> None:
        if self.opened:
            try:
                self._ask("close", self.session, 5.0)
            except (WorkerTimeout, WorkerFailed):
                pass
        self.opened = False

    async def __aenter__(self) -> IsolatedBackends:
        return self

    async def __aexit__(self, *exc) -> None:
        await asyncio.get_running_loop().run_in_executor(_waiting_threads(), self.close)


@functools.cache
def _waiting_threads() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=16, thread_name_prefix="evalui-call-wait")


class IsolatedMemory(IsolatedBackends):
    """One memory conversation's backend (bfcl-eval's MemoryAPI classes), living in a worker: its
    calls run there under the call deadline and the worker's memory cap, like multi-turn calls,
    and its snapshot is written from there. ``allowed`` is known once ``open`` has run."""

    def __init__(self, entry: BfclEntry, snapshot_root: Path, pool=None, model_name: str = ""):
        super().__init__(entry, pool, model_name)
        self.snapshot_root = str(snapshot_root)

    def _allowed_names(self) -> frozenset[str]:
        return frozenset()  # the worker says, once it has built the backend

    def _implemented_names(self) -> frozenset[str]:
        return frozenset()

    def _open_session(self, limit_s: float) -> None:
        names = self._ask("open_memory", (self.session, self.entry, self.snapshot_root, self.history, self.model_name),
                          limit_s)
        self.allowed, self.implemented = frozenset(names["allowed"]), frozenset(names["implemented"])
        self.opened = True

    def open(self) -> None:
        """Build the backend in a worker (loading the scenario's snapshot); raises WorkerFailed."""
        try:
            self._open_session(line_limit_s())
        except WorkerTimeout as exc:
            raise WorkerFailed(f"the memory backend could not be built: {exc}") from None

    def _session_op(self, op: str, payload) -> dict:
        for _attempt in range(2):
            if not self.opened:
                self._open_session(line_limit_s())
            answer = self._ask(op, (self.session, payload), line_limit_s())
            if not answer.get("missing_session"):
                return answer
            self.opened = False
        raise WorkerFailed("the worker kept losing the conversation's memory backend")

    def memory_entry(self) -> BfclEntry:
        """The entry with bfcl's memory instructions in its first turn."""
        import dataclasses

        return dataclasses.replace(self.entry, question=self._session_op("memory_question", self.entry)["question"])

    def flush(self) -> None:
        """Write the backend's snapshot, as bfcl does at the end of a prereq conversation."""
        self._session_op("memory_flush", None)
