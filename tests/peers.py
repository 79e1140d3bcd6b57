"""Fixtures' helpers: scripted endpoints and settings pointing at them."""

from __future__ import annotations

import time

from evalui.engine.settings import EndpointSettings

SENTINEL_KEY = "sk-evalui-sentinel-7f3a9c1e5b"


def settings_for(peer, **overrides) -> EndpointSettings:
    values = {"base_url": peer.base_url, "model": "scripted-model", "api_key": SENTINEL_KEY,
              "timeout_s": 5.0, "max_retries": 3}
    values.update(overrides)
    return EndpointSettings(**values)


def cancel_when_asked(peer, cancel, thread, requests: int = 2) -> float:
    """Once the peer has been asked ``requests`` times, cancel the run in ``thread``; the seconds it took to end."""
    deadline = time.monotonic() + 5
    while len(peer.chat_requests()) < requests and time.monotonic() < deadline:
        time.sleep(0.05)
    cancelled_at = time.monotonic()
    cancel.set()
    thread.join(timeout=10)
    return time.monotonic() - cancelled_at
