"""A stored sample's conversation as plain message blocks, in the order they happened: each step's
messages, then the step's reply (text and tool calls, with its tokens and latency), then the tool
results no later step carried. Model text stays data: arguments are read with json.loads only.
No gradio, no HTML (viewer_transcript renders these)."""

from __future__ import annotations

import json

from evalui.viewer.inspector_data import _content_text
from evalui.viewer.texts import Words, english


def _text(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def pretty_arguments(arguments) -> str:
    """Arguments as indented JSON when they are JSON, else as the model sent them."""
    if isinstance(arguments, str):
        try:
            return json.dumps(json.loads(arguments), ensure_ascii=False, indent=2)
        except (ValueError, RecursionError):
            return arguments
    return json.dumps(arguments, ensure_ascii=False, indent=2, default=str)


def call_signature(call: dict) -> str:
    """name(arguments) on one line, the arguments' keys sorted: what the A/B view aligns and compares."""
    arguments = call.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return f"{call.get('name', '')}({arguments})"
    return f"{call.get('name', '')}({json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)})"


def _message_calls(message: dict) -> list[dict]:
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) and isinstance(call.get("function"), dict) else {}
        calls.append({"name": _text(function.get("name")), "arguments": function.get("arguments")})
    return calls


def _steps(sample) -> list[dict]:
    if sample.trajectory:
        return [s if isinstance(s, dict) else {} for s in sample.trajectory]
    request = sample.request if isinstance(sample.request, dict) else {}
    response = sample.response if isinstance(sample.response, dict) else {}
    if not request and not response:
        return []
    return [{"messages": request.get("messages") or [], "text": response.get("text", ""),
             "tool_calls": response.get("tool_calls") or []}]


def blocks(sample, words: Words = english) -> list[dict]:
    """{role, text, calls, name, error, figures, step}: role is system, user, assistant or tool;
    ``figures`` in ``words`` (evalui.viewer.texts)."""
    out: list[dict] = []
    steps = _steps(sample)
    for number, step in enumerate(steps):
        following = steps[number + 1] if number + 1 < len(steps) else None
        for message in step.get("messages") or []:
            if not isinstance(message, dict):
                continue
            role = str(message.get("role") or "user")
            role = "system" if role == "developer" else role
            out.append({"role": role, "text": _content_text(message.get("content")), "calls": _message_calls(message),
                        "name": _text(message.get("name")), "error": "", "figures": "", "step": number})
        figures = []
        if "prompt_tokens" in step:
            figures.append(words("viewer.step", n=number + 1, prompt=step.get("prompt_tokens", 0),
                                 completion=step.get("completion_tokens", 0),
                                 seconds=f"{float(step.get('latency_s') or 0.0):.2f}", attempts=step.get("attempts", 1)))
        if step.get("finish_reason") and step.get("finish_reason") not in ("stop", "tool_calls"):
            figures.append(words("viewer.stopped", reason=step["finish_reason"]))
        if step.get("note"):
            figures.append(words("viewer.not_accepted", note=step["note"]))
        calls = [{"name": _text(c.get("name")), "arguments": c.get("arguments")}
                 for c in step.get("tool_calls") or [] if isinstance(c, dict)]
        if step.get("text") or calls or figures:
            out.append({"role": "assistant", "text": _text(step.get("text")), "calls": calls, "name": "",
                        "error": "", "figures": " · ".join(figures), "step": number})
        carried = following is not None and any(isinstance(m, dict) and m.get("role") == "tool"
                                                for m in following.get("messages") or [])
        if not carried:
            for result in step.get("tool_results") or []:
                if isinstance(result, dict):
                    out.append({"role": "tool", "text": _content_text(result.get("content")), "calls": [],
                                "name": _text(result.get("name")), "error": _text(result.get("error")),
                                "figures": "", "step": number})
    return out


def tool_calls(sample) -> list[dict]:
    """Every tool call of the sample, in order (the replies' and any earlier assistant messages')."""
    return [dict(call, step=b["step"]) for b in blocks(sample) if b["role"] == "assistant" for call in b["calls"]]


def function_docs(sample) -> list:
    """The functions the request offered the model (its ``tools``), when the run kept them."""
    request = sample.request if isinstance(sample.request, dict) else {}
    tools = request.get("tools")
    return tools if isinstance(tools, list) else []
