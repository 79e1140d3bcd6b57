"""A sample's stored trajectory as Inspect AI chat messages.

A step's ``messages`` are what it added before the model answered (never the reply itself), so
the conversation is: each step's messages, then the step's reply as an assistant message. Tool
results reach the conversation as the next step's tool messages; a last step's results, which no
later step carried, are added as tool messages after it. Model text is data: tool arguments are
read with json.loads only, and nothing is run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from evalui.core.record import StepRecord

# Inspect's ToolCallError types that evalui's tool errors map onto; any other is "unknown".
_TOOL_ERRORS = {"timeout": "timeout", "bad_arguments": "parsing", "bad_call": "parsing", "too_large": "limit",
                "too_many_calls": "limit", "refused": "permission", "unicode_decode": "unicode_decode"}


def _text(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def content(value):
    """OpenAI message content as Inspect content: text, or parts (images kept as their URL)."""
    from inspect_ai.model import ContentImage, ContentText

    if not isinstance(value, list):
        return _text(value)
    parts = []
    for part in value:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            parts.append(ContentText(text=_text(part.get("text"))))
        elif kind == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            parts.append(ContentImage(image=url) if isinstance(url, str) and url else ContentText(text="[image]"))
        else:
            parts.append(ContentText(text=_text(part)))
    return parts


def tool_call(call_id: str, name, arguments):
    """An Inspect ToolCall; arguments that are not a JSON object are kept as a parse error."""
    from inspect_ai.tool import ToolCall

    if isinstance(arguments, dict):
        return ToolCall(id=call_id, function=_text(name), arguments=arguments)
    parsed, error = None, None
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError) as exc:
            error = f"the arguments are not JSON ({exc.__class__.__name__})"
    if not isinstance(parsed, dict) and error is None:
        error = "the arguments are not a JSON object"
    if error:
        return ToolCall(id=call_id, function=_text(name), arguments={}, parse_error=f"{error}: {_text(arguments)[:2000]}")
    return ToolCall(id=call_id, function=_text(name), arguments=parsed)


def message(raw: dict, names: dict[str, str]):
    """One stored chat message (OpenAI format) as an Inspect message; ``names`` maps call ids to functions."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser

    role = raw.get("role") if isinstance(raw, dict) else None
    body = content(raw.get("content") if isinstance(raw, dict) else raw)
    if role in ("system", "developer"):
        return ChatMessageSystem(content=body)
    if role == "assistant":
        calls = []
        for index, call in enumerate(raw.get("tool_calls") or []):
            call = call if isinstance(call, dict) else {}
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            call_id = _text(call.get("id")) if call.get("id") else f"call_{index}"
            names[call_id] = _text(function.get("name"))
            calls.append(tool_call(call_id, function.get("name"), function.get("arguments")))
        return ChatMessageAssistant(content=body, tool_calls=calls or None)
    if role == "tool":
        call_id = _text(raw.get("tool_call_id")) or None
        return ChatMessageTool(content=body, tool_call_id=call_id, function=names.get(call_id or ""))
    if role == "user":
        return ChatMessageUser(content=body)
    return ChatMessageUser(content=body, metadata={"role": _text(role)})


def _call_ids(step_index: int, step: StepRecord, following: StepRecord | None) -> list[str]:
    """The ids the tool messages of the next step use for this step's calls, else made-up ones."""
    replies = [m for m in (following.messages if following else []) if m.get("role") == "tool"]
    ids = [_text(m.get("tool_call_id")) for m in replies]
    if len(ids) == len(step.tool_calls) and all(ids):
        return ids
    return [f"call_{step_index}_{k}" for k in range(len(step.tool_calls))]


@dataclass
class Turn:
    """One model call: the messages it added, its reply, and each call it made with what the tool
    returned (``results``: (ToolCall, ChatMessageTool), in call order, for the calls that ran).
    ``trailing`` are the result messages no later step carried, which the conversation shows after
    the reply. ``fresh``: the step opened a new conversation (a retry asked anew, a fallback)."""

    added: list
    reply: object
    results: list = field(default_factory=list)
    trailing: list = field(default_factory=list)
    fresh: bool = False


def turns(steps: list[StepRecord], model: str) -> list[Turn]:
    """Each step as a Turn, with each reply's tokens, latency and note in its metadata."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool
    from inspect_ai.tool import ToolCallError

    out: list[Turn] = []
    names: dict[str, str] = {}
    for index, step in enumerate(steps):
        following = steps[index + 1] if index + 1 < len(steps) else None
        added = [message(m, names) for m in step.messages]
        ids = _call_ids(index, step, following)
        calls = []
        for call_id, call in zip(ids, step.tool_calls):
            names[call_id] = call.name
            calls.append(tool_call(call_id, call.name, call.arguments))
        figures = {"prompt_tokens": step.prompt_tokens, "completion_tokens": step.completion_tokens,
                   "latency_s": step.latency_s, "attempts": step.attempts}
        if step.note:
            figures["note"] = step.note
        reply = ChatMessageAssistant(content=step.text or "", tool_calls=calls or None, model=model or None,
                                     metadata=figures)
        results = []
        for call, result in zip(calls, step.tool_results):
            error = ToolCallError(_TOOL_ERRORS.get(result.error, "unknown"), result.error) if result.error else None
            results.append((call, ChatMessageTool(content=content(result.content), tool_call_id=call.id,
                                                  function=names.get(call.id) or result.name, error=error)))
        carried = following is not None and any(m.get("role") == "tool" for m in following.messages)
        # The step records no flag for it: a conversation asked anew (a retry, a fallback) is stored from
        # its start, which is its system prompt, where a continued one only adds replies and turns.
        fresh = index > 0 and bool(step.messages) and step.messages[0].get("role") in ("system", "developer")
        out.append(Turn(added, reply, results, [] if carried else [m for _, m in results], fresh))
    return out


def conversation(steps: list[StepRecord], model: str) -> list:
    """Every message of the trajectory, in order, with each reply's tokens, latency and note."""
    return [m for turn in turns(steps, model) for m in (*turn.added, turn.reply, *turn.trailing)]
