"""Turning a BFCL entry into a chat request, exactly as bfcl-eval's OpenAI chat-completions handler
(``bfcl_eval/model_handler/api_inference/openai_completion.py``) builds it.

Every part of a request comes from bfcl-eval's own functions, called as that handler calls them:
the entry from ``load_dataset_entry`` (function docs with its language hints), the prompt-mode
messages from ``system_prompt_pre_processing_chat_model``, the FC tools from ``convert_to_tool(...,
GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS)`` (float annotation, dots in names turned into
underscores, a function's ``response`` schema kept). Nothing here rewrites them; their output is
cached per entry, since building it during a run would cost the event loop as much as the HTTP
itself at a 10 ms endpoint (bench/engine_ceiling.py). tests/test_bfcl_request_parity*.py compares
every entry's request with the handler's own.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import orjson

from evalui.benchmarks.bfcl.data import BfclEntry

# What the handler sends besides messages and tools: ``bfcl generate``'s default temperature is
# evalui's default too (evalui.endpoint.settings), and every request says ``store: false``.
BFCL_EXTRA_BODY = {"store": False}


def sanitise_name(name: str) -> str:
    """bfcl's rule for FC tool names (``convert_to_tool``): OpenAI-style APIs reject dots, so they become
    underscores."""
    return re.sub(r"\.", "_", name)


def _official():
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()  # sets BFCL_PROJECT_ROOT before bfcl_eval.utils is imported
    from bfcl_eval.constants.enums import ModelStyle
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
    from bfcl_eval.model_handler.utils import convert_to_tool, system_prompt_pre_processing_chat_model

    return convert_to_tool, GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS, system_prompt_pre_processing_chat_model


def _copy(value):
    # bfcl's functions edit their input in place; orjson's round trip is the cheap deep copy.
    return orjson.loads(orjson.dumps(value))


@functools.lru_cache(maxsize=64)
def official_entries(category: str) -> dict[str, dict]:
    """The category's entries as ``bfcl generate`` loads them (``load_dataset_entry``), by id; shared, read only."""
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()
    from bfcl_eval.utils import load_dataset_entry

    return {entry["id"]: entry for entry in load_dataset_entry(category)}


class _JsonList(list):
    """A list of JSON values whose ``copy.deepcopy`` is orjson's round trip: ``convert_to_tool`` deep-copies
    its input first, and copy.deepcopy was most of the time spent building a run's requests before the
    first one was sent (bench/RESULTS.md, "Engine phases"). The copy is the same plain list."""

    def __deepcopy__(self, memo) -> list:
        try:
            return _copy(list(self))
        except (TypeError, ValueError):  # what orjson does not write (a huge int): the usual copy
            import copy

            return copy.deepcopy(list(self), memo)


def official_tools(functions: list[dict]) -> list[dict]:
    """``convert_to_tool(functions, GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS)``, as the handler's
    ``_compile_tools`` calls it."""
    convert_to_tool, mapping, style, _ = _official()
    return convert_to_tool(_JsonList(functions), mapping, style)


def official_prompt_messages(messages: list[dict], functions: list[dict], entry_id: str) -> list[dict]:
    """The first turn with bfcl's system prompt (its function docs, per the entry's id), as the
    handler's ``_pre_query_processing_prompting``; ``messages`` is not changed."""
    return _official()[3](_copy(messages), functions, entry_id)


@functools.lru_cache(maxsize=16384)
def _first_request(category: str, entry_id: str, mode: str) -> tuple[list[dict], list[dict], dict[str, str]]:
    entry = official_entries(category)[entry_id]
    if mode == "fc":  # _pre_query_processing_FC, _compile_tools, add_first_turn_message_FC
        tools = official_tools(entry["function"])
        names = {tool["function"]["name"]: function["name"] for tool, function in zip(tools, entry["function"])}
        return list(entry["question"][0]), tools, names
    # _pre_query_processing_prompting, add_first_turn_message_prompting
    return official_prompt_messages(entry["question"][0], entry["function"], entry_id), [], {}


def prepare_requests(entries: Iterable[BfclEntry], mode: str) -> None:
    """Build every entry's request now, before a run's requests start (see the module's docstring)."""
    check_mode(mode)
    for entry in entries:
        _first_request(entry.category, entry.id, mode)


def check_mode(mode: str) -> str:
    if mode not in ("fc", "prompt"):
        raise ValueError(f"mode must be 'fc' or 'prompt', not {mode!r}")
    return mode


def build_request(entry: BfclEntry, mode: str) -> dict:
    """``{"messages", "tools" (None in prompt mode or without functions), "tool_names", "extra_body"}``.

    The messages are the request's own; the tools are shared between requests for the same entry
    (they are only read, and serialised per request)."""
    messages, tools, names = _first_request(entry.category, entry.id, check_mode(mode))
    return {"messages": _copy(messages), "tools": tools or None, "tool_names": names, "extra_body": BFCL_EXTRA_BODY}


def result_from_response(response: dict, mode: str):
    """The official result-file value: text in prompt mode; in FC mode the tool calls as
    ``[{tool_name: arguments_json}]``, or the text when the model called nothing (as upstream)."""
    if mode == "fc" and response.get("tool_calls"):
        return [{call["name"]: call["arguments"]} for call in response["tool_calls"]]
    return response.get("text", "")
