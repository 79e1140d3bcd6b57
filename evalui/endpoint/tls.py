"""The TLS context every connection to a model endpoint verifies with: one per process.

Loading the CA bundle costs tens of milliseconds of CPU, and a run, each preflight check and a
judge each open connections; nothing changes the context after it is made, and a context may be
shared by threads and event loops. The trust store is certifi's, the one httpx and aiohttp use
by default, so an endpoint that verified before still does."""

from __future__ import annotations

import functools
import ssl


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    try:
        import certifi

        return ssl.create_default_context(cafile=certifi.where())
    except ImportError:
        return ssl.create_default_context()
