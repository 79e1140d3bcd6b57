"""What an endpoint answers, as evalui reads it: replies, tool calls, failures and their kinds.

Kept apart from the HTTP client (evalui.endpoint.client, which re-exports these names) so that the
parsing of untrusted replies reads on its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

# The most tokens one reply may report, as prompt or as completion tokens. The largest context
# window offered today is about 10M tokens, so an honest reply never reports more; a count past it
# is a lie, and refusing it keeps every figure built from counts (a sample's, a run's, its cost)
# far below what a store's integer columns and a float can hold.
MAX_REPLY_TOKENS = 10_000_000


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str
    id: str | None = None  # the endpoint's id, which a tool result refers back to


@dataclass(frozen=True)
class ChatReply:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = 1
    finish_reason: str = ""  # why the endpoint stopped ("stop", "length", "tool_calls", …): the scanners read it
    # The assistant message as the endpoint sent it: a conversation sends it back as it came, as
    # the OpenAI SDK does with bfcl's handlers (every field the endpoint set). Never stored.
    message: dict | None = field(default=None, repr=False, compare=False)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class EndpointError(RuntimeError):
    """A request that failed for good (after its retries, or at once for a client error)."""

    def __init__(self, kind: str, message: str, attempts: int, plain: str | None = None, unreachable: bool = False):
        self.kind = kind
        self.attempts = attempts
        self.unreachable = unreachable  # the endpoint did not answer at all (refused, DNS, …)
        super().__init__(f"{kind}: {message} (after {attempts} attempt{'s' if attempts != 1 else ''})")
        # One sentence for the log and the status (evalui.endpoint.failures); the text above is stored.
        self.plain = plain or str(self)


class Cancelled(EndpointError):
    """The run was cancelled while this request was in flight or waiting to be retried."""

    def __init__(self, attempts: int):
        super().__init__("cancelled", "the run was cancelled", attempts)


class _Failure(Exception):
    """One failed attempt, already classified: the single place where errors get their kind."""

    def __init__(self, kind: str, message: str, *, retryable: bool, retry_after: float | None = None,
                 cause: str | None = None, seconds: float | None = None, status: int | None = None):
        self.kind, self.retryable, self.retry_after = kind, retryable, retry_after
        # cause: why a connection failed (evalui.endpoint.failures); seconds: the deadline that ran out
        self.cause, self.seconds, self.status = cause, seconds, status
        super().__init__(message)


def json_bytes(value) -> bytes:
    """``value`` as compact UTF-8 JSON; orjson (a gradio dependency) when it can, else json."""
    try:
        import orjson

        return orjson.dumps(value)
    except (ImportError, TypeError, OverflowError):  # no orjson, or a value only json takes (big ints)
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def json_value(data: bytes):
    try:
        import orjson

        return orjson.loads(data)
    except (ImportError, ValueError):  # json also reads NaN and Infinity, which orjson refuses
        return json.loads(data)


def _retry_after_seconds(headers: Mapping) -> float | None:
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                pass  # an HTTP date: fall back to exponential backoff
    return None


def _status_failure(status: int, body: bytes, headers: Mapping) -> _Failure:
    detail = body[:300].decode("utf-8", "replace").strip().splitlines()
    message = f"HTTP {status}" + (f": {detail[0][:200]}" if detail else "")
    if status == 429:
        return _Failure("rate_limited", message, retryable=True, retry_after=_retry_after_seconds(headers),
                        status=status)
    if status >= 500:
        return _Failure("server_error", message, retryable=True, retry_after=_retry_after_seconds(headers),
                        status=status)
    if 300 <= status < 400:
        return _Failure("redirect_refused", f"HTTP {status}: the endpoint redirects, and redirects are never "
                        "followed (use the final URL as the base URL)", retryable=False)
    return _Failure(f"http_{status}", message, retryable=False, status=status)


def parse_completion(completion: object, latency_s: float = 0.0, attempts: int = 1) -> ChatReply:
    """A chat completion's text, tool calls and usage; _Failure("bad_response") if it is none.
    ``latency_s`` and ``attempts``: the call's, when the caller knows them (one reply made, not two)."""
    def bad(why: str) -> _Failure:
        return _Failure("bad_response", why, retryable=True)

    if not isinstance(completion, dict):
        raise bad("the response is not a JSON object")
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise bad("no choices in the response")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise bad("the first choice has no message")
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str) or not function["name"]:
            raise bad("a tool call without a function name")
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments if arguments is not None else {})
        calls.append(ToolCall(function["name"], arguments, call["id"] if isinstance(call.get("id"), str) else None))
    try:
        prompt_tokens, completion_tokens = usage_tokens(completion.get("usage"))
    except ValueError as exc:
        raise bad(str(exc)) from None
    content = message.get("content")
    finish_reason = choices[0].get("finish_reason")
    return ChatReply(text=content if isinstance(content, str) else "", tool_calls=calls,
                     prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, latency_s=latency_s,
                     attempts=attempts, finish_reason=finish_reason[:40] if isinstance(finish_reason, str) else "",
                     message=message)


def usage_tokens(usage: object) -> tuple[int, int]:
    """A reply's (prompt, completion) tokens from its ``usage``; ValueError names the count that lies.

    The counts are billed and summed into a run's cost and budget, so a negative one would make a
    run look cheaper than it was (a budget never reached) and a huge one would not fit the store.
    No usage, or a count left out or null, is 0: many local servers send none."""
    if usage is None:
        return 0, 0
    if not isinstance(usage, dict):
        raise ValueError(f"the usage is {_shown(usage)}, not an object of token counts")
    return _count(usage, "prompt_tokens"), _count(usage, "completion_tokens")


def _count(usage: dict, key: str) -> int:
    value = usage.get(key)
    if value is None:
        return 0
    # A bool is an int to Python, not a count; a float is taken only when whole (some servers
    # write 12.0), and NaN and infinities are not whole.
    if isinstance(value, float) and value.is_integer():
        whole = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        whole = value
    else:
        whole = None
    if whole is None or not 0 <= whole <= MAX_REPLY_TOKENS:
        raise ValueError(f"the usage's {key} is {_shown(value)}; a token count is a whole number "
                         f"from 0 to {MAX_REPLY_TOKENS:,}")
    return whole


def _shown(value: object) -> str:
    """A hostile value in a message: short, and never the whole of a large one."""
    if isinstance(value, str):
        return repr(value[:40]) + ("…" if len(value) > 40 else "")
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a {value.bit_length()}-bit integer"  # its digits could be thousands long
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    return {"list": "a list", "dict": "an object"}.get(type(value).__name__, type(value).__name__)


def _redacted(reply: ChatReply, secrets: list[str]) -> ChatReply:
    """An endpoint may echo the key back; it never reaches the store, a report or the page."""
    def clean(text: str) -> str:
        for secret in secrets:
            text = text.replace(secret, "[redacted]")
        return text

    if not secrets:
        return reply
    # The message as JSON text: no recursion over a deep hostile message.
    message_text = json_bytes(reply.message).decode() if reply.message is not None else ""
    said = [message_text, reply.text, *(part for c in reply.tool_calls for part in (c.name, c.arguments, c.id or ""))]
    if not any(secret in text for secret in secrets for text in said):
        return reply  # the usual case: nothing to take out, so nothing is copied
    message = json_value(clean(message_text)) if reply.message is not None else None
    return replace(reply, text=clean(reply.text), message=message,
                   tool_calls=[ToolCall(clean(c.name), clean(c.arguments), c.id and clean(c.id))
                               for c in reply.tool_calls])
