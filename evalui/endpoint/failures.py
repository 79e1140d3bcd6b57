"""What went wrong with a request, in words a person can act on, and whether the endpoint is gone.

The client classifies each failed attempt (evalui.endpoint.completion._Failure); here an aiohttp
exception gets its cause (refused, DNS, connect timeout, a dropped connection, TLS), and every
failure gets one plain sentence for the run's log and status. The raw text stays in the stored
error, already cleaned of secrets.
"""

from __future__ import annotations

import socket

import aiohttp

from evalui.endpoint.completion import _Failure

# Causes that say the endpoint did not answer at all: these open the circuit (evalui.endpoint.circuit).
UNREACHABLE = frozenset({"refused", "dns", "connect_timeout", "dropped", "connect"})


def connection_failure(exc: BaseException, connect_s: float) -> _Failure:
    """An aiohttp/OS exception raised before any HTTP answer, with its cause."""
    raw = f"{type(exc).__name__}: {exc}"[:300]
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        cause = "connect_timeout"
        raw = f"no connection within {connect_s:g} s"
    elif isinstance(exc, aiohttp.ClientSSLError):
        cause = "tls"
    elif isinstance(exc, aiohttp.ClientConnectorDNSError) or isinstance(getattr(exc, "os_error", None), socket.gaierror):
        cause = "dns"
    elif isinstance(exc, aiohttp.ClientConnectorError):
        cause = "refused" if isinstance(exc.os_error, ConnectionRefusedError) else "connect"
    elif isinstance(exc, ConnectionRefusedError):
        cause = "refused"
    elif isinstance(exc, (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError, ConnectionResetError,
                          aiohttp.ClientPayloadError)):
        cause = "dropped"
    else:
        cause = "connect"
    return _Failure("connection", raw, retryable=cause != "tls", cause=cause, seconds=connect_s)


def is_unreachable(failure: _Failure) -> bool:
    return failure.cause in UNREACHABLE


def plain_words(failure: _Failure, host: str) -> str:
    """One sentence for the log and the status: no library's exception text, no secret."""
    cause, seconds, status, kind = failure.cause, failure.seconds, failure.status, failure.kind
    if kind == "connection":
        return {
            "refused": f"connection refused by {host}: is the server running, and is the port right?",
            "dns": f"the host name {host} cannot be resolved (DNS)",
            "connect_timeout": f"no connection to {host} within {seconds or 0:g} s",
            "dropped": f"{host} closed the connection without answering",
            "tls": f"the TLS handshake with {host} failed (its certificate?)",
        }.get(cause, f"cannot connect to {host}")
    if kind == "timeout":
        return f"{host} sent no complete answer within {seconds or 0:.0f} s (a slow model? raise the timeout)"
    if kind == "rate_limited":
        wait = f"; it asks to wait {failure.retry_after:g} s (Retry-After)" if failure.retry_after is not None else ""
        return f"rate limited by {host} (HTTP 429){wait}"
    if kind == "server_error":
        return f"{host} failed on its side (HTTP {status})"
    if kind == "http_401":
        return f"HTTP 401 from {host}: the API key is missing or wrong"
    if kind == "http_403":
        return f"HTTP 403 from {host}: the key may not use this endpoint or model"
    if kind == "http_404":
        return f"HTTP 404 from {host}: the model name or the base URL is wrong (the base URL often ends in /v1)"
    if kind.startswith("http_"):
        return f"HTTP {kind[5:]} from {host}: the endpoint refused the request"
    if kind == "bad_response":
        return f"{host} answered, but not with a chat completion ({failure})"
    if kind == "redirect_refused":
        return f"{host} redirects, and redirects are never followed: give the final URL as the base URL"
    if kind == "response_too_large":
        return f"the answer from {host} is too large ({failure})"
    return f"{kind}: {failure}"
