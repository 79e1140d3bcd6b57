"""Fixtures' helpers: scripted endpoints and settings pointing at them."""

from __future__ import annotations

from evalui.engine.settings import EndpointSettings

SENTINEL_KEY = "sk-evalui-sentinel-7f3a9c1e5b"


def settings_for(peer, **overrides) -> EndpointSettings:
    values = {"base_url": peer.base_url, "model": "scripted-model", "api_key": SENTINEL_KEY,
              "timeout_s": 5.0, "max_retries": 3}
    values.update(overrides)
    return EndpointSettings(**values)
