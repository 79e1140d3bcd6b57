"""Which key the server may use on a visitor's behalf: its own, and only for its own endpoint."""

from __future__ import annotations

from evalui.endpoint.settings import default_endpoint


def key_for(base_url: str) -> str:
    default_base, default_key, _ = default_endpoint()
    if default_base and default_base.rstrip("/") == (base_url or "").rstrip("/"):
        return default_key
    return ""
