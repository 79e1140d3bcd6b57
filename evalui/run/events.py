"""What a run tells the layers above it when it ends.

The run core knows nothing of where it is deployed: a Space's Hub sync (evalui.deploy) listens here
for a finished run instead of being called by name.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

_listeners: list[Callable[[str], None]] = []
_lock = threading.Lock()


def on_run_finished(listener: Callable[[str], None]) -> Callable[[], None]:
    """Call ``listener(exp_id)`` after each run that wrote its exports; returns the way to stop.

    Adding the same listener twice keeps one, so a front end may install it on every start."""
    with _lock:
        if listener not in _listeners:
            _listeners.append(listener)

    def stop() -> None:
        with _lock:
            if listener in _listeners:
                _listeners.remove(listener)

    return stop


def run_finished(exp_id: str) -> None:
    """Tell every listener; one that fails is logged and never fails the run that finished."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        try:
            listener(exp_id)
        except Exception:  # a listener's failure is its own (a Hub upload), not the run's
            logging.getLogger(__name__).exception("a run-finished listener failed")
