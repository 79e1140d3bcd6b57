"""A quick check that an endpoint can serve a run, before the run registers anything.

A run against a dead or misconfigured endpoint otherwise spends its retries on every sample and
ends as a 0 % chart and empty downloads; one tiny request answers the question in a few seconds
with one message a person can act on.

The request goes out as the run's requests will (evalui.endpoint.client): through aiohttp, which a run imports
anyway, where httpx was an import of its own in every run command; with the same TLS context, basic
auth from credentials in the URL in the key's place, and no proxy taken from the environment.
"""

from __future__ import annotations

import asyncio
import errno
import json
import socket
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import aiohttp

from evalui.endpoint.client import split_credentials
from evalui.endpoint.settings import EndpointSettings
from evalui.endpoint.tls import shared_tls_context
from evalui.endpoint.url_policy import check_base_url, redact_url

# The check's one question: a reply of one token shows the endpoint serves chat completions.
PROBE_MESSAGES = [{"role": "user", "content": "Say OK."}]
MAX_BODY = 1_000_000  # a chat completion for one token is tiny; more means this is not one
MESSAGE_CHARS = 200

# One sentence per failure. The dashboard shows the same kinds in the visitor's language.
MESSAGES = {
    "refused": "connection refused by {host}: is the server running, and is the port right? ({url})",
    "unresolved": "the host {host} cannot be resolved ({url})",
    "connect": "cannot connect to {host} ({url})",
    "timeout": "{host} did not answer within {seconds} s ({url})",
    "redirect": "{url} redirects (HTTP {status}) to {target}; give the final address as the base URL",
    "unauthorized": "HTTP 401 from {host}: missing or wrong API key",
    "forbidden": "HTTP 403 from {host}: the key may not use this endpoint or model",
    "model": "model {model!r} not found or refused by {host} (HTTP {status})",
    "not_found": "HTTP 404 at {url}: is the base URL right? OpenAI-compatible servers answer at "
                 "<base URL>/chat/completions (the base URL often ends in /v1)",
    "http": "HTTP {status} from {host}",
    "not_openai": "{host} answered, but not with an OpenAI-compatible chat completion ({url})",
}


class PreflightError(ValueError):
    """The endpoint cannot serve a run; one sentence, without secrets.

    ``kind`` and ``facts`` let a page say the same in another language; ``detail`` is what the
    server itself said (already cleaned of secrets), if anything.
    """

    def __init__(self, kind: str, detail: str = "", **facts):
        self.kind, self.detail, self.facts = kind, detail, facts
        text = MESSAGES[kind].format(**facts)
        super().__init__(f"{text}: {detail}" if detail else text)


@dataclass(frozen=True)
class Answer:
    host: str
    seconds: float
    rate_limited: bool = False

    def __str__(self) -> str:
        note = " (rate limited just now: the run will back off)" if self.rate_limited else ""
        return f"OK: {self.host} answered in {self.seconds:.2f} s{note}"


def check_endpoint(settings: EndpointSettings, timeout_s: float = 5.0) -> str:
    """Send one chat completion of one token; return "OK: <host> answered in N s" or raise.

    Raises RefusedURL (a ValueError) for a URL the server may not call, PreflightError otherwise.
    """
    return str(probe_endpoint(settings, timeout_s))


def probe_endpoint(settings: EndpointSettings, timeout_s: float = 5.0) -> Answer:
    check_base_url(settings.base_url)
    url = settings.base_url.strip().rstrip("/") + "/chat/completions"
    where = {"host": settings.host, "url": redact_url(url)}
    started = time.perf_counter()
    try:
        # wait_for bounds the whole exchange: a server that drips its body never waits long per read.
        status, headers, body = _run(asyncio.wait_for(_post(settings, url), timeout_s))
    except TimeoutError:
        raise PreflightError("timeout", seconds=f"{timeout_s:g}", **where) from None
    except aiohttp.ClientConnectorError as exc:
        raise PreflightError(_connect_kind(exc), **where) from None
    except (aiohttp.ClientError, OSError) as exc:
        raise PreflightError("connect", _clean(str(exc) or type(exc).__name__, settings), **where) from None
    seconds = time.perf_counter() - started
    _check_reply(settings, where, status, headers, body)
    return Answer(settings.host, seconds, rate_limited=status == 429)


def _run(coroutine):
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    # Called from inside an event loop (an async handler): asyncio.run needs a thread of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _post(settings: EndpointSettings, url: str) -> tuple[int, Mapping[str, str], bytes]:
    url, basic = split_credentials(url)
    authorization = basic or (f"Bearer {settings.api_key}" if settings.api_key else None)
    headers = {"Authorization": authorization} if authorization else {}
    payload = {"model": settings.model, "messages": PROBE_MESSAGES, "max_tokens": 1, "temperature": 0}
    # trust_env=False as the run's client: no proxy from the environment sees the key, and the check
    # reaches the endpoint the way the run will.
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=shared_tls_context()),
                                     timeout=aiohttp.ClientTimeout(total=None), cookie_jar=aiohttp.DummyCookieJar(),
                                     trust_env=False) as session:
        async with session.post(url, json=payload, headers=headers, allow_redirects=False) as response:
            body = bytearray()
            async for chunk in response.content.iter_any():
                body += chunk
                if len(body) > MAX_BODY:
                    break
            return response.status, response.headers, bytes(body)


def _connect_kind(exc: aiohttp.ClientConnectorError) -> str:
    causes: list[BaseException] = [exc.os_error]
    cause: BaseException | None = exc
    while cause is not None and len(causes) < 10:
        causes.append(cause)
        cause = cause.__cause__ or cause.__context__
    if any(isinstance(c, ConnectionRefusedError) or getattr(c, "errno", None) == errno.ECONNREFUSED for c in causes):
        return "refused"
    if any(isinstance(c, socket.gaierror) for c in causes):
        return "unresolved"
    return "connect"


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


def _check_reply(settings: EndpointSettings, where: dict, status: int, headers: Mapping[str, str], body: bytes) -> None:
    said = _clean(_server_message(body), settings) if status >= 400 else ""
    if 300 <= status < 400:
        target = redact_url(headers.get("location", "")) or "another address"
        raise PreflightError("redirect", status=status, target=target, **where)
    if status == 401:
        raise PreflightError("unauthorized", said, **where)
    if status == 403:
        raise PreflightError("forbidden", said, **where)
    if status in (400, 404, 422) and "model" in said.lower():
        raise PreflightError("model", said, model=settings.model, status=status, **where)
    if status == 404:
        raise PreflightError("not_found", said, **where)
    if status == 429:
        return  # reachable, and the key works; the run backs off on its own
    if status >= 400:
        raise PreflightError("http", said, status=status, **where)
    if not _is_chat_completion(body):
        raise PreflightError("not_openai", **where)


def _is_chat_completion(body: bytes) -> bool:
    if len(body) > MAX_BODY:
        return False
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return False
    choices = data.get("choices") if isinstance(data, dict) else None
    return (isinstance(choices, list) and bool(choices) and isinstance(choices[0], dict)
            and isinstance(choices[0].get("message"), dict))
