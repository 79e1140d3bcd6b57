"""Waiting for events in tests, with bounds that only catch a hang.

Tests never assert how long something took: a loaded machine (load 12 on 2 cores was seen in CI)
makes everything slower. They wait for the event itself (a request, a file, a state, a thread's
end) and fail with a message only when it never comes. Speed figures live in bench/.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")

# Far above any normal wait, even on a loaded machine, and far below "forever".
HANG_S = 120.0


def wait_for(condition: Callable[[], T], what: str, within_s: float = HANG_S, poll_s: float = 0.05) -> T:
    """Poll ``condition`` until it returns something truthy, and return that; fail if it never does."""
    deadline = time.monotonic() + within_s
    while not (value := condition()):
        if time.monotonic() > deadline:  # a hang, not a slow machine: the bound is far above any normal wait
            pytest.fail(f"{what}: never happened (waited {within_s:g} s)")
        time.sleep(poll_s)
    return value


def finishes(call: Callable[[], T], what: str, within_s: float = HANG_S) -> T:
    """``call()``'s result (or its exception), failing instead of hanging if it never returns.

    The call runs in a daemon thread, so a call that hangs does not keep the test process alive."""
    outcome: dict = {}

    def target():
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the test as it was raised
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="finishes", daemon=True)
    thread.start()
    thread.join(within_s)
    assert not thread.is_alive(), f"{what}: still going after {within_s:g} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
