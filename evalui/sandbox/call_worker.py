"""Worker processes that run untrusted work (a model's calls on bfcl-eval's backends, the official
multi-turn checker) away from the server, each request under hard deadlines.

A call that passes every argument check can still take minutes inside a backend
(``round(1, -10**7)``, a regular expression that backtracks), and it holds the GIL while it runs:
in the server process that freezes every page and every run. Here the work runs in a child
process, and the parent, which only waits on a pipe, enforces two deadlines:

- per call: the child stamps the start and name of each backend method it enters into shared
  memory (``Heartbeat``); a call past ``call_limit_s`` gets the child killed;
- per request: a whole request (say, checking one result line) past its limit, likewise.

A killed child is replaced on the next request (``generation`` counts the replacements, so the
callers that kept state in it know to rebuild it). The child caps its own address space, dies with
its parent, and runs whatever handler module it was started for (``handler`` names a
``module:function`` taking ``(op, payload)``).

Workers start from multiprocessing's fork server: the server has many threads, and forking a
threaded process can deadlock the child, but the fork server is a fresh single-threaded process
that imports the handler's modules (``preload``) once, so a replacement worker is a fork away
instead of a new interpreter importing bfcl-eval and every provider SDK (tens of seconds on a busy
machine). The fork server keeps the environment it started with, so each worker is handed the
current ``EVALUI_*`` settings.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
import time
from dataclasses import dataclass

from evalui.settings import read

POLL_S = 0.02
STARTUP_LIMIT_S = 600.0  # a new worker imports bfcl-eval (every provider SDK): slow on a busy machine
NAME_BYTES = 160


def call_limit_s() -> float:
    """The longest one backend call may run (EVALUI_CALL_SECONDS, default 5 s)."""
    return read("call_seconds")


def line_limit_s() -> float:
    """The longest one request (checking one result line) may run (EVALUI_LINE_SECONDS, default 30 s)."""
    return read("line_seconds")


def memory_limit_bytes() -> int:
    """The address space of a worker (EVALUI_CALL_WORKER_MEMORY_MB, default 2048 MB)."""
    return int(read("call_worker_memory_mb") * 1024 * 1024)


class WorkerTimeout(RuntimeError):
    """The request ran past a deadline; the worker that ran it was killed."""

    def __init__(self, message: str, call_name: str = "", limit_s: float = 0.0, per_call: bool = True):
        super().__init__(message)
        self.call_name, self.limit_s, self.per_call = call_name, limit_s, per_call


class WorkerFailed(RuntimeError):
    """The worker died (out of memory, a crash) or its handler raised; the message says which."""


@dataclass
class Heartbeat:
    """What the child is doing now, in memory the parent reads without asking it."""

    started: object  # multiprocessing Value('d'): monotonic time the current call began, 0 when idle
    name: object  # multiprocessing Array('c'): the current call's name

    def current(self) -> tuple[float, str]:
        return self.started.value, self.name.value.decode("utf-8", "replace")


class Worker:
    """One child process and the pipe to it; one request at a time."""

    def __init__(self, handler: str, memory_bytes: int, preload: tuple[str, ...] = (), env: tuple[str, ...] = ()):
        # ``env``: prefixes of environment variables the child gets besides EVALUI_* (its backends' own).
        self.handler, self.memory_bytes, self.preload, self.env = handler, memory_bytes, preload, env
        self.lock = threading.Lock()
        self.generation = 0
        self.process = self.conn = self.heartbeat = None

    def _start(self) -> None:
        from evalui.sandbox.call_worker_child import serve

        context = _fork_server(self.preload)
        parent_end, child_end = context.Pipe()
        self.heartbeat = Heartbeat(context.Value("d", 0.0, lock=False), context.Array("c", NAME_BYTES, lock=False))
        settings = {k: v for k, v in os.environ.items() if k.startswith(("EVALUI_", *self.env))}
        self.process = context.Process(target=serve, args=(child_end, self.handler, self.heartbeat.started,
                                                            self.heartbeat.name, self.memory_bytes, settings),
                                       name="evalui-call-worker", daemon=True)
        self.process.start()
        child_end.close()
        self.conn = parent_end
        self.generation += 1
        # Imports and set-up are not the first request's time: they get a bound of their own.
        self._exchange("warm", None, limit_s=STARTUP_LIMIT_S, per_call_s=STARTUP_LIMIT_S)

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join(5)
            self.conn.close()
        self.process = self.conn = None

    def request(self, op: str, payload, *, limit_s: float, per_call_s: float):
        """The handler's answer to ``(op, payload)``; raises WorkerTimeout or WorkerFailed."""
        with self.lock:
            if self.process is None or not self.process.is_alive():
                self.kill()
                self._start()
            return self._exchange(op, payload, limit_s=limit_s, per_call_s=per_call_s)

    def _exchange(self, op: str, payload, *, limit_s: float, per_call_s: float):
        """One request and its answer, under the deadlines; the caller holds ``self.lock``."""
        try:
            self.conn.send((op, payload))
        except (OSError, ValueError) as exc:
            self.kill()
            raise WorkerFailed(f"the worker could not take the request: {exc}") from None
        began = time.monotonic()
        while not self.conn.poll(POLL_S):
            now = time.monotonic()
            started, name = self.heartbeat.current()
            if started and now - started > per_call_s:
                self.kill()
                raise WorkerTimeout(f"the call {name[:80]!r} ran past its {per_call_s:g} s limit and was stopped",
                                    name, per_call_s, per_call=True)
            if now - began > limit_s:
                self.kill()
                raise WorkerTimeout(f"the work ran past its {limit_s:g} s limit and was stopped"
                                    + (f" (in {name[:80]!r})" if started else ""), name, limit_s, per_call=False)
            if not self.process.is_alive():
                code = self.process.exitcode
                self.kill()
                raise WorkerFailed(f"the worker process ended (exit code {code}), out of memory or crashed")
        try:
            status, value = self.conn.recv()
        except (EOFError, OSError) as exc:
            self.kill()
            raise WorkerFailed(f"the worker process ended while answering: {exc}") from None
        if status == "fatal":  # the child cannot be trusted after this (a MemoryError)
            self.kill()
        if status != "ok":
            raise WorkerFailed(value)
        return value


_fork_server_lock = threading.Lock()


def _fork_server(preload: tuple[str, ...]):
    """The fork-server context; the first caller's ``preload`` is what the (one) fork server imports."""
    context = multiprocessing.get_context("forkserver")
    with _fork_server_lock:
        if preload and not getattr(_fork_server, "preloaded", False):
            context.set_forkserver_preload(list(preload))
            _fork_server.preloaded = True
    return context


class WorkerPool:
    """A few workers for one handler; ``affinity`` keeps a caller's requests on one worker."""

    def __init__(self, handler: str, size: int = 2, memory_bytes: int | None = None, preload: tuple[str, ...] = (),
                 env: tuple[str, ...] = ()):
        self.workers = [Worker(handler, memory_bytes or memory_limit_bytes(), preload, env) for _ in range(max(1, size))]
        self.closed = False
        self._next = 0
        self._choosing = threading.Lock()

    def pick(self) -> int:
        with self._choosing:
            index = self._next % len(self.workers)
            self._next += 1
            return index

    def worker(self, index: int) -> Worker:
        return self.workers[index % len(self.workers)]

    def request(self, op: str, payload, *, affinity: int | None = None, limit_s: float | None = None,
                per_call_s: float | None = None):
        if self.closed:
            raise WorkerFailed("the run's call workers were stopped (the run ended or was cancelled)")
        worker = self.worker(self.pick() if affinity is None else affinity)
        return worker.request(op, payload, limit_s=limit_s or line_limit_s(), per_call_s=per_call_s or call_limit_s())

    def close(self) -> None:
        self.closed = True
        for worker in self.workers:
            process = worker.process
            if process is not None:  # a request in flight sees its worker gone now, not at its deadline
                process.kill()
        for worker in self.workers:
            with worker.lock:
                worker.kill()


_pools: dict[str, WorkerPool] = {}
_pools_lock = threading.Lock()


def workers_per_pool() -> int:
    """Workers of one pool: the process's shared one, or a run's own (EVALUI_CALL_WORKERS, default 2)."""
    return read("call_workers")


def shared_pool(handler: str, preload: tuple[str, ...] = (), env: tuple[str, ...] = ()) -> WorkerPool:
    """The process's one pool for ``handler``, made on first use."""
    with _pools_lock:
        pool = _pools.get(handler)
        if pool is None:
            pool = _pools[handler] = WorkerPool(handler, size=workers_per_pool(), preload=preload, env=env)
            if len(_pools) == 1:
                atexit.register(close_pools)
        return pool


def close_pools() -> None:
    """Stop every worker; the next request starts new ones (which read the EVALUI_* limits anew)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.close()
