"""Turning a BFCL entry into a chat request, in FC mode (native tools) or prompt mode."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable

import orjson

from evalui.benchmarks.bfcl.data import BfclEntry

# BFCL's parameter types, mapped to JSON-schema types an OpenAI-compatible server accepts.
_JSON_SCHEMA_TYPES = {
    "integer": "integer", "int": "integer", "byte": "integer", "short": "integer", "long": "integer",
    "bigint": "integer", "float": "number", "double": "number", "number": "number",
    "string": "string", "str": "string", "char": "string", "any": "string",
    "boolean": "boolean", "bool": "boolean",
    "array": "array", "list": "array", "tuple": "array", "arraylist": "array", "queue": "array", "stack": "array",
    "dict": "object", "object": "object", "hashmap": "object", "hashtable": "object",
}

PROMPT_MODE_SYSTEM = """You are an expert at composing function calls. You receive a question and a list of functions.
Call one or more of the functions to achieve what the question asks.
If none of the functions fits, say so and call none. If the question lacks a required argument, say so.

Answer with the calls only, and nothing else, in this format:
[function_name(param_name=value, other_param=value), other_function(param=value)]

The functions, in JSON:
{functions}"""


def sanitise_name(name: str) -> str:
    """BFCL's rule for FC tool names: OpenAI-style APIs reject dots, so dots become underscores."""
    return name.replace(".", "_")


def language_specific_functions(entry: BfclEntry) -> list[dict]:
    """The function docs as the model should see them, with bfcl-eval's language hints.

    Java and JavaScript parameters are presented as strings in that language's syntax, exactly as
    ``bfcl generate`` presents them, so that the checker's type conversion applies. The result is
    shared between requests for the same entry (a resume asks again): callers only read it.
    """
    return _hinted_functions(entry.category, entry.id)


@functools.lru_cache(maxsize=8192)
def _hinted_functions(category: str, entry_id: str) -> list[dict]:
    from evalui.benchmarks.bfcl.data import entries_by_id
    from evalui.scoring.bfcl_official import load_official

    load_official()  # sets BFCL_PROJECT_ROOT before bfcl_eval.utils is imported
    from bfcl_eval.utils import add_language_specific_hint_to_function_doc

    entry = entries_by_id(category)[entry_id]
    # bfcl-eval edits the docs in place: it gets a copy (orjson's round trip is the cheap deep copy).
    [processed] = add_language_specific_hint_to_function_doc([{"id": entry.id,
                                                               "function": orjson.loads(orjson.dumps(entry.functions))}])
    return processed["function"]


@functools.lru_cache(maxsize=8192)
def _fc_tools(category: str, entry_id: str) -> tuple[list[dict], dict[str, str]]:
    from evalui.benchmarks.bfcl.data import entries_by_id

    return tools_for(language_specific_functions(entries_by_id(category)[entry_id]))


@functools.lru_cache(maxsize=8192)
def _prompt_system(category: str, entry_id: str) -> str:
    from evalui.benchmarks.bfcl.data import entries_by_id

    functions = language_specific_functions(entries_by_id(category)[entry_id])
    return PROMPT_MODE_SYSTEM.format(functions=json.dumps(functions, ensure_ascii=False, indent=1))


def prepare_requests(entries: Iterable[BfclEntry], mode: str) -> None:
    """Build what every request of these entries shares (hinted docs, tools or system prompt) now,
    before a run's requests start: built during the run, it costs the event loop as much as the
    HTTP itself at a 10 ms endpoint (bench/engine_ceiling.py)."""
    shared = _fc_tools if mode == "fc" else _prompt_system
    for entry in entries:
        shared(entry.category, entry.id)


def _json_schema(schema: dict) -> dict:
    converted = dict(schema)
    kind = str(schema.get("type", "string"))
    converted["type"] = _JSON_SCHEMA_TYPES.get(kind.lower(), "string")
    if "properties" in schema:
        converted["properties"] = {k: _json_schema(v) for k, v in schema["properties"].items()}
    if "items" in schema and isinstance(schema["items"], dict):
        converted["items"] = _json_schema(schema["items"])
    if converted["type"] == "array" and "items" not in converted:
        converted["items"] = {"type": "string"}
    return converted


def tools_for(functions: list[dict]) -> tuple[list[dict], dict[str, str]]:
    """OpenAI tools for the functions, and the map from sanitised tool name back to the real name."""
    tools, names = [], {}
    for function in functions:
        tool_name = sanitise_name(function["name"])
        names[tool_name] = function["name"]
        tools.append(
            {
                "type": "function",
                "function": {
                    "name": tool_name,
                    "description": function.get("description", ""),
                    "parameters": _json_schema(function.get("parameters", {"type": "dict", "properties": {}})),
                },
            }
        )
    return tools, names


def build_request(entry: BfclEntry, mode: str) -> dict:
    """``{"messages": [...], "tools": [...] | None, "tool_names": {...}}`` for one entry.

    The messages are the request's own; the tools are shared between requests for the same entry
    (they are only read, and serialised per request)."""
    messages = orjson.loads(orjson.dumps(entry.user_messages()))
    if mode == "fc":
        tools, names = _fc_tools(entry.category, entry.id)
        return {"messages": messages, "tools": tools or None, "tool_names": names}
    if mode != "prompt":
        raise ValueError(f"mode must be 'fc' or 'prompt', not {mode!r}")
    system = _prompt_system(entry.category, entry.id)
    if messages and messages[0].get("role") == "system":
        messages[0] = {"role": "system", "content": f"{system}\n\n{messages[0]['content']}"}
    else:
        messages.insert(0, {"role": "system", "content": system})
    return {"messages": messages, "tools": None, "tool_names": {}}


def result_from_response(response: dict, mode: str):
    """The official result-file value: text in prompt mode; in FC mode the tool calls as
    ``[{tool_name: arguments_json}]``, or the text when the model called nothing (as upstream)."""
    if mode == "fc" and response.get("tool_calls"):
        return [{call["name"]: call["arguments"]} for call in response["tool_calls"]]
    return response.get("text", "")
