"""Chat-completions client for any OpenAI-compatible endpoint: retries, deadlines, caps, cancel.

Every request runs as a coroutine on one event loop that the client owns, so that:
- a deadline covers the whole request (connect, headers and body together): an endpoint that
  drips its body one byte a second cannot hold a run, as it could when the timeout applied
  between reads;
- a response is read up to a size cap, and nothing beyond the cap is kept;
- a cancel event stops a request in flight, or a retry wait, within a fraction of a second;
- the threads of the runner share one pool of keep-alive connections.
Redirects are never followed: a base URL must not be able to send the key to another host.

The HTTP stack is aiohttp: httpx's connection pool walks every connection for every request,
which at high concurrency made the client, not the endpoint, the limit of a run (measured with
bench/engine_ceiling.py; bench/RESULTS.md); aiohttp's C parser costs a fraction of that.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import threading
import time
import weakref
from urllib.parse import unquote, urlsplit, urlunsplit

import aiohttp

from evalui.endpoint import in_flight
from evalui.endpoint.circuit import Breaker, EndpointCircuit
from evalui.endpoint.completion import (  # noqa: F401  (re-exported: callers import them from here)
    Cancelled,
    ChatReply,
    EndpointError,
    ToolCall,
    _Failure,
    _redacted,
    _status_failure,
    json_bytes,
    json_value,
    parse_completion,
)
from evalui.endpoint.failures import connection_failure, is_unreachable, plain_words
from evalui.endpoint.loop_thread import LoopThread
from evalui.endpoint.settings import EndpointSettings
from evalui.endpoint.tls import shared_tls_context
from evalui.settings import read

MAX_RETRY_AFTER_S = 60.0
CONNECT_TIMEOUT_S = 10.0
PROBE_TIMEOUT_S = 5.0
CANCEL_POLL_S = 0.1


def endpoint_url(base_url: str, path: str) -> str:
    """``base_url`` + ``/path``, keeping any query string (some gateways take the key there) at the end."""
    parts = urlsplit(base_url.strip())
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/" + path, parts.query, ""))


def split_credentials(url: str) -> tuple[str, str | None]:
    """The URL without ``user:password@``, and the basic-auth header those credentials make."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    host = parts.netloc.rsplit("@", 1)[1]
    auth = aiohttp.BasicAuth(unquote(parts.username or ""), unquote(parts.password or ""))
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment)), auth.encode()


def max_response_bytes() -> int:
    """The largest reply body read (EVALUI_MAX_RESPONSE_BYTES, default 2 MB) when the endpoint sets none."""
    return read("max_response_bytes")


class ModelClient:
    """One endpoint. Thread-safe: the runner's workers share it, and its connections."""

    def __init__(self, settings: EndpointSettings, *, backoff_initial_s: float = 0.5, backoff_max_s: float = 20.0,
                 max_connections: int = 256):
        self.settings = settings
        self._backoff = (backoff_initial_s, backoff_max_s)
        self._cap = settings.max_response_bytes or max_response_bytes()
        self._secrets = settings.secrets()
        self._cancel: threading.Event | None = None
        self._url, basic = split_credentials(endpoint_url(settings.base_url, "chat/completions"))
        self._models_url = split_credentials(endpoint_url(settings.base_url, "models"))[0]
        # Requests wait while the endpoint, after answering once, stops answering (evalui.endpoint.circuit).
        self.circuit = EndpointCircuit(Breaker(settings.host), self._probe)
        self._headers = {"content-type": "application/json"}
        # Local servers (vLLM, Ollama, llama.cpp) accept any key or none. Credentials in the base
        # URL (a gateway's basic auth) take the header's place, as they did with httpx.
        if basic:
            self._headers["authorization"] = basic
        elif settings.api_key:
            self._headers["authorization"] = f"Bearer {settings.api_key}"
        self._runner = LoopThread(f"evalui-http-{settings.host}")
        self._http = self._on_loop(self._make_http(max_connections))
        self._finalizer = weakref.finalize(self, _shutdown, self._runner, self._http)

    @staticmethod
    async def _make_http(max_connections: int) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(limit=max_connections, ssl=shared_tls_context())
        # The deadline is ours (asyncio.timeout over the whole request). Cookies are not kept: a
        # reply must not change what later requests carry. trust_env=False: no proxy from the
        # environment sees the key.
        return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None),
                                     cookie_jar=aiohttp.DummyCookieJar(), trust_env=False)

    @property
    def loop_thread(self) -> threading.Thread:
        """The thread of the event loop that sends this client's requests."""
        return self._runner.thread

    def _on_loop(self, coroutine):
        return self._runner.run(coroutine)

    def submit(self, coroutine) -> concurrent.futures.Future:
        """Run a coroutine on the client's event loop (where ``achat`` runs best); the runner runs
        a task that has ``acall`` this way."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._runner.loop)

    def cancel_on(self, event: threading.Event | None) -> None:
        """Requests in flight and retry waits end soon after ``event`` is set."""
        self._cancel = event

    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> ModelClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def request_body(self, messages: list[dict], tools: list[dict] | None, overrides: dict,
                     extra_body: dict | None = None) -> dict:
        """The JSON body: no ``max_tokens`` unless one is set (as bfcl's handlers send none), no
        ``tools`` when there are none; ``extra_body`` (a benchmark's own fields) is added last."""
        body = {"model": self.settings.model, "messages": messages,
                "temperature": overrides.get("temperature", self.settings.temperature)}
        max_tokens = overrides.get("max_tokens", self.settings.max_tokens)
        if max_tokens:
            body["max_tokens"] = max_tokens
        if tools:
            body["tools"] = tools
        if extra_body:
            body.update(extra_body)
        return body

    def chat(self, messages: list[dict], *, tools: list[dict] | None = None, extra_body: dict | None = None,
             **overrides) -> ChatReply:
        """One chat completion, retried as configured; raises EndpointError (Cancelled on cancel)."""
        cancel = self._cancel
        if cancel is not None and cancel.is_set():
            raise Cancelled(0)
        if threading.current_thread() is self._runner.thread:
            # It would wait for its own loop forever (a task with acall whose judge calls chat).
            raise RuntimeError("ModelClient.chat was called on the client's own event loop; await achat there")
        # The sample this thread calls for goes along by hand: the loop's tasks do not inherit
        # this thread's context variables.
        call = self._runner.submit(self._achat(in_flight.current(), messages, tools, extra_body, overrides))
        while not call.wait(CANCEL_POLL_S):
            if cancel is not None and cancel.is_set():
                self._runner.cancel(call)
                raise Cancelled(0)
        if call.error is not None:
            raise call.error
        return call.result

    async def achat(self, messages: list[dict], *, tools: list[dict] | None = None, extra_body: dict | None = None,
                    **overrides) -> ChatReply:
        return await self._achat(in_flight.current(), messages, tools, extra_body, overrides)

    async def _achat(self, flight: in_flight.Flight | None, messages: list[dict], tools: list[dict] | None,
                     extra_body: dict | None, overrides: dict) -> ChatReply:
        body = json_bytes(self.request_body(messages, tools, overrides, extra_body))
        started = time.monotonic()
        retries, timeout_s = self.settings.max_retries, self.settings.timeout_s
        # Retries and their waits share one budget, so a Retry-After never outlasts the call.
        budget_end = started + timeout_s * (retries + 1)
        attempts = 0  # requests sent
        charged = 0  # failed attempts counted against max_retries: not those an outage of the endpoint caused
        while True:
            if flight is not None:
                flight.waiting = self.circuit.breaker.is_open
            if await self.circuit.wait_until_closed():
                # The endpoint was down and answers again: the wait was not this request's time.
                budget_end = time.monotonic() + timeout_s * (retries + 1 - charged)
            if flight is not None:
                flight.waiting, flight.attempt, flight.max_attempts = False, charged + 1, retries + 1
            attempts += 1
            try:
                remaining = budget_end - time.monotonic()
                reply = await self._attempt(body, min(timeout_s, max(remaining, 0.001)), started, attempts)
                self.circuit.answered()
                return _redacted(reply, self._secrets)
            except _Failure as failure:
                if not is_unreachable(failure):
                    self.circuit.answered()  # an HTTP answer, even a refusal: the host is up
                elif self.circuit.unreachable():
                    continue  # the circuit is open: wait for the endpoint, uncharged
                charged += 1
                wait = self._wait_before_retry(failure, charged)
                if not failure.retryable or charged > retries or wait is None \
                        or time.monotonic() + wait >= budget_end:
                    message = str(failure)
                    if failure.retryable and failure.retry_after and failure.retry_after > budget_end - time.monotonic():
                        message += f"; Retry-After {failure.retry_after:g} s is past the request's deadline"
                    raise EndpointError(failure.kind, self._clean(message), attempts,
                                        self._clean(plain_words(failure, self.settings.host)),
                                        is_unreachable(failure)) from None
                await asyncio.sleep(wait)

    def _wait_before_retry(self, failure: _Failure, attempts: int) -> float | None:
        if failure.retry_after is not None:
            return failure.retry_after if failure.retry_after <= MAX_RETRY_AFTER_S else None
        initial, maximum = self._backoff
        return min(maximum, initial * 2 ** (attempts - 1)) * (0.5 + random.random() / 2)

    async def _attempt(self, body: bytes, deadline_s: float, started: float, attempts: int) -> ChatReply:
        """One request; its reply carries the call's latency since ``started`` and its ``attempts``."""
        # A connect that takes this long is an endpoint that is gone, not a slow model.
        connect_s = min(CONNECT_TIMEOUT_S, deadline_s * 0.8)
        try:
            async with asyncio.timeout(deadline_s):
                async with self._http.post(self._url, data=body, headers=self._headers, allow_redirects=False,
                                           timeout=aiohttp.ClientTimeout(total=None, connect=connect_s)) as response:
                    status, headers = response.status, response.headers
                    data = await self._read_capped(response)
        except aiohttp.ConnectionTimeoutError as exc:  # a TimeoutError too: told apart first
            raise connection_failure(exc, connect_s) from None
        except TimeoutError:
            raise _Failure("timeout", f"no complete response within {deadline_s:.1f} s", retryable=True,
                           seconds=deadline_s) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise connection_failure(exc, connect_s) from None
        if status != 200:
            raise _status_failure(status, data, headers)
        try:
            completion = json_value(data)
        except (ValueError, RecursionError):
            raise _Failure("bad_response", "the response body is not JSON", retryable=True) from None
        return parse_completion(completion, time.monotonic() - started, attempts)

    async def _probe(self) -> bool:
        """Whether the endpoint answers at all: one GET of its model list. Any HTTP answer but a
        gateway's "the server behind me is down" (502, 503, 504) will do; the requests find out the rest."""
        try:
            async with asyncio.timeout(PROBE_TIMEOUT_S):
                async with self._http.get(self._models_url, headers=self._headers, allow_redirects=False) as response:
                    await response.content.read(1024)  # a few bytes: the answer, not the list
                    return response.status not in (502, 503, 504)
        except (TimeoutError, aiohttp.ClientError, OSError):
            return False

    async def _read_capped(self, response: aiohttp.ClientResponse) -> bytes:
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self._cap:
            raise _Failure("response_too_large", f"the response declares {declared} bytes, more than the "
                           f"{self._cap} bytes allowed", retryable=False)
        if declared and declared.isdigit() and "content-encoding" not in response.headers:
            # Not compressed, and no larger than the cap: the body is the declared bytes, read at once
            # (a compressed body may grow past its declared size, so it is counted as it comes).
            return await response.read()
        chunks, size = [], 0
        # Counted after decompression, chunk by chunk: nothing beyond the cap is kept.
        async for chunk in response.content.iter_any():
            size += len(chunk)
            if size > self._cap:
                raise _Failure("response_too_large", f"the response is larger than the {self._cap} bytes allowed",
                               retryable=False)
            chunks.append(chunk)
        return b"".join(chunks)

    def _clean(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        return text


def _shutdown(runner: LoopThread, http: aiohttp.ClientSession) -> None:
    if not runner.loop.is_running():
        return
    closing = asyncio.run_coroutine_threadsafe(http.close(), runner.loop)
    # The last reference to a client can go on its own loop's thread, which must not wait on itself.
    if threading.current_thread() is not runner.thread:
        try:
            closing.result(timeout=2)
        except Exception:  # closing is best effort: the process may be exiting
            pass
        runner.stop()
    else:
        closing.add_done_callback(lambda _: runner.stop())
