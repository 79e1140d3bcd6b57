"""Tool calls in plain text, for endpoints without native tool calling.

The model writes each call as a JSON object between ``<tool_call>`` and ``</tool_call>``; evalui
answers with the results between ``<tool_result>`` tags in the next user message. A reply with no
tool call is the final reply. Everything is parsed as data: JSON, never code.
"""

from __future__ import annotations

import json
import re

from evalui.benchmarks.gaia.tools.base import Tool
from evalui.endpoint.client import ToolCall

_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
BAD_CALL = "_malformed"  # the name a call gets when its JSON cannot be read


def describe(tools: list[Tool]) -> str:
    listed = "\n".join(f"- {t.name}: {t.description}\n  arguments (JSON schema): {json.dumps(t.parameters)}"
                       for t in tools)
    return ("To use a tool, write one block per call, exactly like this, and then stop and wait for the result:\n"
            '<tool_call>{"name": "TOOL NAME", "arguments": {...}}</tool_call>\n'
            "The results come back in <tool_result> blocks. Tools:\n" + listed)


def parse(text: str) -> list[ToolCall]:
    """The calls in a reply, in order; a block that is not a call becomes a call named BAD_CALL.

    All of them: the agent's budget refuses a step with too many (the reply's size is checked first)."""
    calls = []
    for block in _CALL.findall(text or ""):
        try:
            value = json.loads(block.strip())
        except (ValueError, RecursionError):
            value = None
        if not isinstance(value, dict) or not isinstance(value.get("name"), str):
            calls.append(ToolCall(BAD_CALL, json.dumps({"block": block[:500]})))
            continue
        arguments = value.get("arguments", {})
        calls.append(ToolCall(value["name"], arguments if isinstance(arguments, str) else json.dumps(arguments)))
    return calls


def results_message(results: list[tuple[str, str]]) -> dict:
    body = "\n".join(f'<tool_result name="{name}">\n{content}\n</tool_result>' for name, content in results)
    return {"role": "user", "content": body}
