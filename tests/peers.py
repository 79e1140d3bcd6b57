"""Fixtures' helpers: scripted endpoints and settings pointing at them."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from waiting import HANG_S, wait_for

from evalui.endpoint.settings import EndpointSettings
from support.openai_peer import Reply, completion

SENTINEL_KEY = "sk-evalui-sentinel-7f3a9c1e5b"


def settings_for(peer, **overrides) -> EndpointSettings:
    values = {"base_url": peer.base_url, "model": "scripted-model", "api_key": SENTINEL_KEY,
              "timeout_s": 5.0, "max_retries": 3}
    values.update(overrides)
    return EndpointSettings(**values)


class Held:
    """A script that holds every request unanswered until ``release()`` (or the block's end).

    A client that waited for the answer would wait until the test releases it, so "the run ended
    anyway" is an event a test can wait for, instead of a duration it must time. ``answer`` is a
    Reply or a script; with ``holding=False`` requests are answered at once until ``hold()``.
    """

    def __init__(self, answer: Reply | Callable[[dict, int], Reply] | None = None, holding: bool = True):
        self.answer = answer or completion("late")
        self._holding, self._released = threading.Event(), threading.Event()
        if holding:
            self._holding.set()

    def __call__(self, body, n) -> Reply:
        if self._holding.is_set():
            self._released.wait(3600)
        return self.answer(body, n) if callable(self.answer) else self.answer

    def hold(self) -> None:
        self._holding.set()

    def release(self) -> None:
        self._released.set()

    def __enter__(self) -> Held:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def cancel_when_asked(peer, cancel, thread, requests: int = 2) -> float:
    """Once the peer has been asked ``requests`` times, cancel the run in ``thread`` and wait for it
    to end; the seconds it took (a figure to print, not to assert: see bench/responsiveness.py)."""
    wait_for(lambda: len(peer.chat_requests()) >= requests, f"the run never asked the endpoint {requests} times")
    cancelled_at = time.monotonic()
    cancel.set()
    thread.join(HANG_S)
    assert not thread.is_alive(), f"the run still went {HANG_S:g} s after its cancel"
    return time.monotonic() - cancelled_at
