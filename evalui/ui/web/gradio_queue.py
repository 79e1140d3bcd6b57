"""Settings of Gradio's event queue that suit a dashboard left open for hours.

Both are applied by ``build_demo``; each says why Gradio's default does not fit.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)

# Gradio 6.31's queue looks for new events every millisecond while it has none, and for progress to
# send every 10 ms: about 7 % of a core in the server process for as long as an app runs, events
# or not. Every 20 ms and 100 ms cost a sixth of that; an event starts at most 20 ms later, which
# nobody sees, and a progress bar still moves ten times a second.
IDLE_POLL_S = 0.02
PROGRESS_POLL_S = 0.1


def quiet_queue_records() -> None:
    """Gradio's queue summarises its event records with pandas after every event (for a monitoring
    page evalui does not serve), over up to 10,000 records; the tabs' timers make an event a second
    for each open page, so a long-lived dashboard spent most of its CPU there. The summary is kept
    for every 1,000th event over the last 1,000. Set before ``demo.queue()``, which reads them;
    a value the operator set is kept."""
    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "1000")
    os.environ.setdefault("GRADIO_ANALYTICS_MAX_EVENTS", "1000")


def relax_idle_polling(demo) -> None:
    """Poll at ``IDLE_POLL_S`` and ``PROGRESS_POLL_S`` once the app starts.

    Set at start-up, not now: ``demo.queue(...)`` (which the launcher and the tests call after
    building) replaces the queue, and the queue reads both intervals afresh on each round."""

    async def relax() -> None:
        queue = demo._queue
        # Gradio's own names for the two intervals. A Gradio that renamed them still serves the
        # dashboard (at its own polling cost); tests/integration/ui/test_gradio_queue.py fails on it.
        for name, seconds in (("sleep_when_free", IDLE_POLL_S), ("progress_update_sleep_when_free", PROGRESS_POLL_S)):
            if hasattr(queue, name):
                setattr(queue, name, seconds)
            else:
                log.warning("Gradio's queue has no %r: its polling interval is Gradio's own", name)

    demo.extra_startup_events.append(relax)
