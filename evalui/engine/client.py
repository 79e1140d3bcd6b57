"""Chat-completions client for any OpenAI-compatible endpoint, with retries and token accounting."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import openai
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from evalui.engine.settings import EndpointSettings

MAX_RETRY_AFTER_S = 60.0


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatReply:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = 1

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class BadResponse(Exception):
    """The endpoint answered 2xx with a body that is not a usable chat completion."""


class EndpointError(RuntimeError):
    """A request that failed for good (after its retries, or at once for a client error)."""

    def __init__(self, kind: str, message: str, attempts: int):
        self.kind = kind
        self.attempts = attempts
        super().__init__(f"{kind}: {message} (after {attempts} attempt{'s' if attempts != 1 else ''})")


def _is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError, BadResponse)):
        return True
    if isinstance(exc, openai.APIResponseValidationError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code >= 500
    return isinstance(exc, json.JSONDecodeError)


def _error_kind(exc: BaseException) -> str:
    if isinstance(exc, openai.RateLimitError):
        return "rate_limited"
    if isinstance(exc, openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "connection"
    if isinstance(exc, (BadResponse, openai.APIResponseValidationError, json.JSONDecodeError)):
        return "bad_response"
    if isinstance(exc, openai.APIStatusError):
        return "server_error" if exc.status_code >= 500 else f"http_{exc.status_code}"
    return "error"


def _retry_after_seconds(exc: BaseException | None) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    try:
        return float(value) if value else None
    except ValueError:
        return None  # an HTTP date; fall back to exponential backoff


class _BackoffHonouringRetryAfter:
    def __init__(self, initial: float, maximum: float):
        self._exponential = wait_exponential_jitter(initial=initial, max=maximum)

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        retry_after = _retry_after_seconds(exc)
        if retry_after is not None:
            return min(max(retry_after, 0.0), MAX_RETRY_AFTER_S)
        return self._exponential(state)


class ModelClient:
    """One endpoint. Thread-safe: the runner shares one client across its workers."""

    def __init__(self, settings: EndpointSettings, *, backoff_initial_s: float = 0.5, backoff_max_s: float = 20.0):
        self.settings = settings
        self._backoff = (backoff_initial_s, backoff_max_s)
        self._client = openai.OpenAI(
            base_url=settings.base_url or None,
            # Local servers (vLLM, Ollama, llama.cpp) accept any key; the SDK insists on one.
            api_key=settings.api_key or "not-needed",
            timeout=settings.timeout_s,
            max_retries=0,  # retries are ours, so that every attempt is counted and bounded
        )

    def chat(self, messages: list[dict], *, tools: list[dict] | None = None, **overrides) -> ChatReply:
        request = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": overrides.get("temperature", self.settings.temperature),
        }
        max_tokens = overrides.get("max_tokens", self.settings.max_tokens)
        if max_tokens:
            request["max_tokens"] = max_tokens
        if tools:
            request["tools"] = tools
        attempts = 0
        started = time.perf_counter()
        retrying = Retrying(
            retry=retry_if_exception(_is_retryable),
            stop=stop_after_attempt(self.settings.max_retries + 1),
            wait=_BackoffHonouringRetryAfter(*self._backoff),
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    attempts += 1
                    # The SDK's typed create() spends ~2 ms of CPU per call transforming the
                    # request; the generic post() keeps its auth, timeouts and error classes.
                    completion = self._client.post("/chat/completions", body=request, cast_to=object)
                    reply = self._parse(completion)
        except Exception as exc:
            raise EndpointError(_error_kind(exc), _short(exc), attempts) from exc
        return ChatReply(
            text=reply.text,
            tool_calls=reply.tool_calls,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            latency_s=time.perf_counter() - started,
            attempts=attempts,
        )

    @staticmethod
    def _parse(completion) -> ChatReply:
        if not isinstance(completion, dict):
            raise BadResponse("the response is not a JSON object")
        choices = completion.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise BadResponse("no choices in the response")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise BadResponse("the first choice has no message")
        calls = []
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or not function.get("name"):
                raise BadResponse("a tool call without a function name")
            arguments = function.get("arguments")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments if arguments is not None else {})
            calls.append(ToolCall(function["name"], arguments))
        usage = completion.get("usage") if isinstance(completion.get("usage"), dict) else {}
        content = message.get("content")
        return ChatReply(
            text=content if isinstance(content, str) else "",
            tool_calls=calls,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
        )


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:300]
