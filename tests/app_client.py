"""gradio_client's ``Client`` for an app under test, with one TLS context per test process.

gradio_client opens a new httpx client for each request it makes (each prediction, its data
stream, its heartbeat), and httpx loads the CA bundle into a fresh TLS context for each one: about
50 ms of CPU a request, 7 % of a test worker's CPU in a profile of the suite. The apps under test
are plain HTTP on 127.0.0.1, so no context is ever used; the endpoint client's shared context
(certifi's trust store, as httpx's own) keeps certificate checks as they were for any HTTPS address.
"""

from __future__ import annotations

from gradio_client import Client

from evalui.endpoint.tls import shared_tls_context


def app_client(src: str, **kwargs) -> Client:
    return Client(src, ssl_verify=shared_tls_context(), **kwargs)
