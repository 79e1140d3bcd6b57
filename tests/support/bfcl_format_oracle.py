"""A scripted model for BFCL format sensitivity: it answers each request in the return format (and
with the tool-call tag) that the request's system prompt asks for, with the entry's gold calls or a
chosen kind of wrong answer."""

from __future__ import annotations

import json
from xml.sax.saxutils import escape, quoteattr

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.gold import gold_calls, prompt_text
from evalui.benchmarks.bfcl.request import build_request
from evalui.benchmarks.bfcl.scoring.format_sensitivity import CATEGORY, parse_configuration, split_id
from support.openai_peer import Reply, completion

# How an answer goes wrong: the gold calls in Python syntax whatever the format asks (and no tag),
# a function that does not exist, or a wrong value for the first parameter.
WRONG_KINDS = ("python_always", "wrong_function", "wrong_value")


def _xml_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    return {list: "array", dict: "dict", tuple: "tuple"}.get(type(value), "string")


def _xml_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict, tuple)):
        return repr(value)  # bfcl reads these with ast.literal_eval
    return "" if value is None else str(value)


def render(calls: list[tuple[str, dict]], return_format: str, tool_call_tag: bool) -> str:
    """Calls written as the system prompt of that return format shows them."""
    if return_format == "python":
        text = prompt_text(calls)
    elif return_format == "json":
        text = "```json\n" + json.dumps([{"function": n, "parameters": a} for n, a in calls]) + "\n```"
    elif return_format == "verbose_xml":
        text = "<functions>" + "".join(
            f"<function name={quoteattr(n)}><params>" + "".join(
                f"<param name={quoteattr(k)} value={quoteattr(_xml_text(v))} type=\"{_xml_type(v)}\"/>"
                for k, v in a.items()) + "</params></function>" for n, a in calls) + "</functions>"
    elif return_format == "concise_xml":
        text = "<functions>" + "".join(
            f"<function name={quoteattr(n)}>" + "".join(
                f"<param name={quoteattr(k)} type=\"{_xml_type(v)}\">{escape(_xml_text(v))}</param>"
                for k, v in a.items()) + "</function>" for n, a in calls) + "</functions>"
    else:
        raise ValueError(f"unknown return format {return_format!r}")
    return f"<TOOLCALL>{text}</TOOLCALL>" if tool_call_tag else text


def answer(entry, wrong: str | None = None) -> str:
    """The reply text for one format-sensitivity entry: gold, or wrong in the way ``wrong`` names."""
    params = parse_configuration(split_id(entry.id)[0])
    calls = gold_calls(entry.possible_answer)
    if wrong == "python_always":
        return prompt_text(calls)
    if wrong == "wrong_function":
        calls = [("no_such_function", args) for _, args in calls]
    elif wrong == "wrong_value":
        name, args = calls[0]
        first = next(iter(args), None)
        calls = [(name, {**args, first: "zz-not-the-value"} if first else {"zz_unexpected": 1}), *calls[1:]]
    elif wrong is not None:
        raise ValueError(f"unknown wrong kind {wrong!r}")
    return render(calls, params["return_format"], params["tool_call_tag"])


class FormatOracle:
    """Knows the first ``per_entry`` official entries (all configurations) by their request's
    messages; ``wrong_for(entry)`` picks the wrong kind (None: gold)."""

    def __init__(self, entries: int, wrong_for=lambda entry: None):
        chosen = load_category(CATEGORY)
        base_ids = list(dict.fromkeys(split_id(e.id)[1] for e in chosen))[:entries]
        self.entries = [e for e in chosen if split_id(e.id)[1] in base_ids]
        self.wrong_for = wrong_for
        self.by_messages = {self.key(build_request(e, "prompt")["messages"]): e for e in self.entries}
        assert len(self.by_messages) == len(self.entries), "two entries share a request"

    @staticmethod
    def key(messages: list[dict]) -> str:
        return json.dumps([{"role": m.get("role"), "content": m.get("content")} for m in messages], sort_keys=True)

    def __call__(self, body: dict, number: int = 0) -> Reply:
        entry = self.by_messages.get(self.key(body.get("messages") or []))
        if entry is None:
            return Reply(status=400, body={"error": {"message": "not a format-sensitivity request of this test"}})
        return completion(answer(entry, self.wrong_for(entry)))
