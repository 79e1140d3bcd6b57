"""A quick check that an endpoint can serve a run, before the run registers anything.

A run against a dead or misconfigured endpoint otherwise spends its retries on every sample and
ends as a 0 % chart and empty downloads; one tiny request answers the question in a few seconds
with one message a person can act on.
"""

from __future__ import annotations

import asyncio
import errno
import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from evalui.engine.settings import EndpointSettings
from evalui.engine.url_policy import check_base_url, redact_url

MAX_BODY = 1_000_000  # a chat completion for one token is tiny; more means this is not one
MESSAGE_CHARS = 200


class PreflightError(ValueError):
    """The endpoint cannot serve a run; the message says why in one sentence, without secrets."""


def check_endpoint(settings: EndpointSettings, timeout_s: float = 5.0) -> str:
    """Send one chat completion of one token; return "OK: <host> answered in N s" or raise.

    Raises RefusedURL (a ValueError) for a URL the server may not call, PreflightError otherwise.
    """
    check_base_url(settings.base_url)
    url = settings.base_url.strip().rstrip("/") + "/chat/completions"
    shown = redact_url(url)
    started = time.perf_counter()
    try:
        # wait_for bounds the whole exchange; httpx's own timeouts are per phase (connect, each read).
        status, headers, body = _run(asyncio.wait_for(_post(settings, url, timeout_s), timeout_s))
    except (asyncio.TimeoutError, httpx.TimeoutException):
        raise PreflightError(f"{settings.host} did not answer within {timeout_s:g} s ({shown})") from None
    except httpx.ConnectError as exc:
        raise PreflightError(_connect_message(settings.host, shown, exc)) from None
    except httpx.HTTPError as exc:
        raise PreflightError(f"cannot talk to {settings.host}: {_clean(str(exc) or type(exc).__name__, settings)}") from None
    elapsed = time.perf_counter() - started
    note = _check_reply(settings, shown, status, headers, body)
    return f"OK: {settings.host} answered in {elapsed:.2f} s{note}"


def _run(coroutine):
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    # Called from inside an event loop (an async handler): asyncio.run needs a thread of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _post(settings: EndpointSettings, url: str, timeout_s: float) -> tuple[int, httpx.Headers, bytes]:
    headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
    payload = {"model": settings.model, "messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 1,
               "temperature": 0}
    async with httpx.AsyncClient(follow_redirects=False, timeout=timeout_s) as client:
        async with client.stream("POST", url, json=payload, headers=headers) as response:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_BODY:
                    break
            return response.status_code, response.headers, bytes(body)


def _connect_message(host: str, shown: str, exc: httpx.ConnectError) -> str:
    causes, cause = [], exc
    while cause is not None and len(causes) < 10:
        causes.append(cause)
        cause = cause.__cause__ or cause.__context__
    if any(isinstance(c, ConnectionRefusedError) or getattr(c, "errno", None) == errno.ECONNREFUSED for c in causes):
        return f"connection refused by {host}: is the server running, and is the port right? ({shown})"
    if any(isinstance(c, socket.gaierror) for c in causes):
        return f"the host {host} cannot be resolved ({shown})"
    return f"cannot connect to {host} ({shown}): {str(exc) or type(exc).__name__}"


def _clean(text: str, settings: EndpointSettings) -> str:
    """A server's words, shortened and with every secret removed (servers do echo keys back)."""
    for secret in settings.secrets():
        text = text.replace(secret, "[redacted]")
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 1] + "…"


def _server_message(body: bytes) -> str:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return body[:MESSAGE_CHARS].decode("utf-8", "replace").strip()
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            return str(error.get("message") or error.get("type") or "")
        if error:
            return str(error)
        return str(data.get("detail") or data.get("message") or "")
    return ""


def _check_reply(settings: EndpointSettings, shown: str, status: int, headers: httpx.Headers, body: bytes) -> str:
    """Raise PreflightError for a reply a run cannot use; return a note for one it can."""
    host, model = settings.host, settings.model
    said = _clean(_server_message(body), settings)
    detail = f": {said}" if said else ""
    if 300 <= status < 400:
        target = redact_url(headers.get("location", ""))
        raise PreflightError(f"{shown} redirects (HTTP {status}) to {target or 'another address'}; "
                             "give the final address as the base URL")
    if status in (401, 403):
        reason = "missing or wrong API key" if status == 401 else "the key may not use this endpoint or model"
        raise PreflightError(f"HTTP {status} from {host}: {reason}{detail}")
    mentions_model = "model" in said.lower()
    if status in (400, 404, 422) and mentions_model:
        raise PreflightError(f"model {model!r} not found or refused by {host} (HTTP {status}){detail}")
    if status == 404:
        raise PreflightError(f"HTTP 404 at {shown}: is the base URL right? OpenAI-compatible servers answer at "
                             f"<base URL>/chat/completions (the base URL often ends in /v1){detail}")
    if status == 429:
        return " (rate limited just now: the run will back off)"  # reachable, and the key works
    if status >= 400:
        raise PreflightError(f"HTTP {status} from {host}{detail}")
    if not _is_chat_completion(body):
        raise PreflightError(f"{host} answered, but not with an OpenAI-compatible chat completion ({shown})")
    return ""


def _is_chat_completion(body: bytes) -> bool:
    if len(body) > MAX_BODY:
        return False
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return False
    choices = data.get("choices") if isinstance(data, dict) else None
    return bool(choices) and isinstance(choices, list) and isinstance(choices[0], dict) and \
        isinstance(choices[0].get("message"), dict)
