"""Scripts that answer BFCL questions with their gold calls, for the scripted peer."""

from __future__ import annotations

import json

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.gold import fc_arguments, gold_calls, prompt_text
from evalui.benchmarks.bfcl.request import sanitise_name
from evalui.benchmarks.bfcl.scoring.single_turn import RELEVANCE_CATEGORIES, language_of
from support.openai_peer import Reply, completion


def last_user_text(body: dict) -> str:
    return next((m.get("content") or "" for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")


class BfclOracle:
    """Knows every entry of the given categories by its question text."""

    def __init__(self, categories: list[str]):
        self.by_question = {}
        for category in categories:
            for entry in load_category(category):
                self.by_question.setdefault(last_user_text({"messages": entry.user_messages()}), entry)

    def entry_for(self, body: dict):
        return self.by_question.get(last_user_text(body))

    def gold_reply(self, body: dict) -> Reply:
        """The gold answer in the request's own mode (tools present → FC, else prompt text)."""
        entry = self.entry_for(body)
        if entry is None:
            return completion("I do not know this question.")
        if entry.category in RELEVANCE_CATEGORIES:
            if "irrelevance" in entry.category or not entry.functions:
                return completion("None of the functions can answer this.")
            calls = [(entry.functions[0]["name"], {})]
        else:
            calls = gold_calls(entry.possible_answer)
        language = language_of(entry.category)
        if body.get("tools"):
            return completion(None, [(sanitise_name(n), fc_arguments(a, language)) for n, a in calls])
        return completion(prompt_text(calls, language))

    def wrong_reply(self, body: dict) -> Reply:
        entry = self.entry_for(body)
        if body.get("tools") and entry is not None and entry.functions:
            return completion(None, [(sanitise_name(entry.functions[0]["name"]), json.dumps({"zz_wrong": 1}))])
        return completion("[no_such_function(x=1)]")


def gold_call_parts(call: str, involved_classes) -> tuple[str, dict]:
    """A gold call string (trusted dataset text, e.g. ``sort('a.pdf')``) as a name and keyword
    arguments: positional values are named from the backend method's signature."""
    import ast
    import inspect

    from evalui.benchmarks.bfcl.scoring.multi_turn import backend_class
    from evalui.benchmarks.bfcl.scoring.official import parse_python

    # The scripted peer answers from threads of the test's own process, beside the run's decoders:
    # its parses take turns with theirs (evalui.benchmarks.bfcl.scoring.official._PARSING).
    node = parse_python(call).body
    name = node.func.id
    arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    if node.args:
        method = next(getattr(backend_class(c), name) for c in involved_classes if hasattr(backend_class(c), name))
        parameters = [p for p in inspect.signature(method).parameters if p != "self"]
        arguments = {**dict(zip(parameters, (ast.literal_eval(a) for a in node.args))), **arguments}
    return name, arguments


def gold_turns(entry) -> list[list[tuple[str, dict]]]:
    """The entry's gold calls, per turn, as (name, keyword arguments)."""
    return [[gold_call_parts(call, entry.involved_classes) for call in turn] for turn in entry.possible_answer]
