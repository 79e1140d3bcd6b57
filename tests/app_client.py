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

# gradio_client's requests (its config read first) wait httpx's default 5 s for an answer; a loaded CI
# machine has taken longer to serve an app's config, so a test's client waits longer.
CLIENT_TIMEOUT_S = 60.0


def app_client(src: str, **kwargs) -> Client:
    kwargs.setdefault("httpx_kwargs", {"timeout": CLIENT_TIMEOUT_S})
    return Client(src, ssl_verify=shared_tls_context(), **kwargs)


# Gradio's launch asks the new server for its page once (a HEAD with a 3 s timeout) and, on a timeout,
# refuses to start without a share link: on a loaded CI machine the server's first answer can take
# longer. That check is the only one tried again; any other error is the test's.
LOCALHOST_CHECK = "localhost is not accessible"
LAUNCH_TRIES = 3


def launch_demo(demo, **kwargs):
    """``demo.launch`` in this process, as the tests start the dashboard: (app, url, share url)."""
    import app

    for attempt in range(LAUNCH_TRIES):
        try:
            return demo.launch(prevent_thread_lock=True, quiet=True, **kwargs, **app.launch_options())
        except ValueError as exc:
            if LOCALHOST_CHECK not in str(exc) or attempt == LAUNCH_TRIES - 1:
                raise
            demo.close()
    raise AssertionError("unreachable")
