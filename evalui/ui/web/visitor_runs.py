"""How many runs one visitor may have going at once, so one page or account cannot take every slot
of a shared server. A visitor is the signed-in user, else the page's session (a page load).

EVALUI_MAX_RUNS_PER_VISITOR sets the cap (0: none). Unset, it is 2 on a shared deployment (a
Space, --auth, an allow-list) and none on a server of one's own.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from evalui.endpoint.url_policy import shared_deployment
from evalui.settings import read
from evalui.ui.web.access import Refused, current_session, current_user, say

MAX_RUNS_ENV = "EVALUI_MAX_RUNS_PER_VISITOR"
SHARED_DEFAULT = 2


def max_runs() -> int | None:
    # Unset and refused (a typo) alike get the deployment's default: a typo never lifts a shared cap.
    value = read("max_runs_per_visitor")
    if value is not None:
        return value if value > 0 else None
    return SHARED_DEFAULT if shared_deployment() else None


def visitor() -> str | None:
    user = current_user()
    if user:
        return f"user:{user}"
    session = current_session()
    return f"session:{session}" if session else None


class RunsInFlight:
    """Server-wide: which visitor started which run, and the starts still being prepared."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owners: dict[str, str] = {}
        self._preparing: Counter[str] = Counter()

    def _taken(self, who: str, running: Callable[[str], bool]) -> int:
        """The visitor's runs going and starts being prepared; call with the lock held."""
        self._owners = {run: owner for run, owner in self._owners.items() if running(run)}
        return sum(1 for owner in self._owners.values() if owner == who) + self._preparing[who]

    @contextmanager
    def start(self, running: Callable[[str], bool]) -> Iterator[Callable[[str], None]]:
        """Hold one of the visitor's slots while a run is prepared; the body calls the yielded
        function with the run's id once it is going. Refused when the visitor's slots are taken."""
        cap, who = max_runs(), visitor()
        if cap is None or who is None:  # no cap, or code outside a request (the server itself)
            yield lambda run_id: None
            return
        with self._lock:
            if self._taken(who, running) >= cap:
                raise Refused(say("msg.too_many_runs", n=cap))
            self._preparing[who] += 1

        def owned(run_id: str) -> None:
            with self._lock:
                self._owners[run_id] = who

        try:
            yield owned
        finally:
            with self._lock:
                self._preparing[who] -= 1


RUNS_IN_FLIGHT = RunsInFlight()
