"""The child side of evalui.sandbox.call_worker: a loop that answers requests with a handler.

Kept apart from the parent's module so that the child imports only what it runs.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pkgutil
import resource
import signal
import time
import traceback

_stamp = None  # (started, name) shared with the parent, set by serve()


@contextlib.contextmanager
def timed_call(name: str):
    """Mark a call's start and name for the parent's per-call deadline (nested calls keep the outer)."""
    if _stamp is None or _stamp[0].value:
        yield
        return
    started, shown = _stamp
    shown.value = name.encode("utf-8", "replace")[: len(shown) - 1]
    started.value = time.monotonic()
    try:
        yield
    finally:
        started.value = 0.0


def _die_with_parent() -> None:
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the pipe's EOF still ends the loop
        pass


def serve(conn, handler: str, started, name, memory_bytes: int, settings: dict) -> None:
    global _stamp
    os.environ.update(settings)  # the limits as the server has them now, not as the fork server started
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    except (ValueError, OSError):
        pass
    _stamp = (started, name)
    answer = pkgutil.resolve_name(handler)
    while True:
        try:
            op, payload = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply = ("ok", answer(op, payload))
        except MemoryError:
            reply = ("fatal", "the work ran out of memory")
        except Exception as exc:  # the handler's own failure, reported to the caller
            reply = ("error", f"{type(exc).__name__}: {exc}"[:2000] or traceback.format_exc(limit=2))
        started.value = 0.0
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return
        if reply[0] == "fatal":
            return
