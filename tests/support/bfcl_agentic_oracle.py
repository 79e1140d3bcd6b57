"""Scripts that play BFCL agentic conversations for the scripted peer.

``MemoryOracle`` stores every prereq turn in memory, and answers each question after one memory
call, with the gold answer or a wrong one. ``WebSearchOracle`` searches, fetches a page and then
answers, with the gold answer or a wrong one.

Requests are recognised by their last message: a dataset turn (a prereq's user turn, or a question)
gets a memory call; anything else (tool results) gets the turn's final words. The calls are the
backend's own functions, picked from what the request offers (tools in FC mode, the function docs
in prompt mode's system prompt), so one oracle serves memory_kv, memory_vector and memory_rec_sum.
"""

from __future__ import annotations

import json
import re
import zlib

from evalui.benchmarks.bfcl.agentic.data import load_agentic_category, prereq_chain, scenario_of
from support.openai_peer import Reply, completion

# (function that stores a turn, function the question calls first), per backend's function names.
STORE_AND_RECALL = (("archival_memory_add", "core_memory_retrieve_all"), ("memory_append", "memory_retrieve"))


def call_reply(body: dict, name: str, arguments: dict, *more: tuple[str, dict]) -> Reply:
    """Calls, as tool calls (FC mode: the request offers tools) or as prompt mode's text."""
    calls = [(name, arguments), *more]
    if body.get("tools"):
        return completion(None, [(n, json.dumps(a)) for n, a in calls])
    return completion("[" + ", ".join(n + "(" + ", ".join(f"{k}={v!r}" for k, v in a.items()) + ")"
                                      for n, a in calls) + "]")


# Planted in what a prereq turn stores: words before brackets, which bfcl's executor rewrites inside
# string arguments, and a call of a function no backend defines.
PLANTED_TEXT = " grinder (or any other) and f (y)"
UNDEFINED_CALL = ("not_a_function", {"a": 1})


def answer_reply(answer: str, context: str) -> Reply:
    """The final answer in the agentic answer format the system prompt asks for."""
    return completion(json.dumps({"answer": answer, "context": context}).replace('"', "'"))


def question_key(entry_id: str) -> str:
    """``memory_kv_3-customer-3`` → ``3-customer-3``: the same question in every memory category."""
    return re.sub(r"^memory_[a-z_]+?_(?=\d)", "", entry_id)


class MemoryOracle:
    def __init__(self, categories: list[str], *, wrong: set[str] = frozenset(), endless: set[str] = frozenset(),
                 planted: bool = False):
        """``wrong``: question keys answered with a wrong answer; ``endless``: keys that never stop calling;
        ``planted``: every store holds PLANTED_TEXT and comes with UNDEFINED_CALL."""
        self.planted = planted
        self.gold: dict[str, list[str]] = {}  # question text → gold answers
        self.keys: dict[str, str] = {}  # question text → question key
        self.prereq_turns: set[str] = set()
        self.wrong, self.endless = set(wrong), set(endless)
        self.ambiguous: list[str] = []
        for category in categories:
            for entry in load_agentic_category(category):
                text = entry.question[0][-1]["content"]
                if self.keys.get(text, question_key(entry.id)) != question_key(entry.id):
                    self.ambiguous.append(text)
                self.gold[text], self.keys[text] = entry.possible_answer, question_key(entry.id)
                for prereq in prereq_chain(category, scenario_of(entry)):
                    self.prereq_turns |= {m["content"] for turn in prereq.question for m in turn if m["role"] == "user"}

    @staticmethod
    def _functions(body: dict) -> tuple[str, str]:
        offered = " ".join([t["function"]["name"] for t in body.get("tools") or []]
                           + [m.get("content") or "" for m in body["messages"] if m.get("role") == "system"])
        return next(pair for pair in STORE_AND_RECALL if pair[0] in offered)

    def _question(self, body: dict) -> str | None:
        return next((m["content"] for m in body["messages"] if m.get("role") == "user" and m["content"] in self.gold),
                    None)

    def reply(self, body: dict) -> Reply:
        last = body["messages"][-1]
        store, recall = self._functions(body)
        question = self._question(body)
        key = self.keys.get(question or "")
        if key in self.endless:
            return call_reply(body, recall, {})
        if last.get("role") == "user" and last.get("content") in self.prereq_turns:
            text = last["content"][:1500] + (PLANTED_TEXT if self.planted else "")
            arguments = {"text": text} if store == "memory_append" else {
                "key": f"note_{zlib.crc32(text.encode())}", "value": text}
            return call_reply(body, store, arguments, *([UNDEFINED_CALL] if self.planted else []))
        if last.get("role") == "user" and last.get("content") == question:
            return call_reply(body, recall, {})
        if question is None:
            return completion("Noted.")
        answer = "I do not know" if key in self.wrong else self.gold[question][0]
        return answer_reply(answer, "from memory")


FETCH_MODES = ("raw", "markdown", "truncate")


def web_question_key(entry_id: str) -> str:
    """``web_search_no_snippet_3`` → ``3``: the same question in both web-search categories."""
    return entry_id.rsplit("_", 1)[-1]


class WebSearchOracle:
    """Per question: ``search_engine_query`` (keywords from the question), then ``fetch_url_content``
    on one of ``pages`` (in turn, with bfcl's three fetch modes in turn), then the answer: gold, or
    "I do not know" for keys in ``wrong``; keys in ``endless`` search forever (force-terminated).
    Pages are the model's choice, so a test can point them at a local server (or a page that is gone)."""

    def __init__(self, categories: list[str], pages: list[str], *, wrong: set[str] = frozenset(),
                 endless: set[str] = frozenset()):
        self.pages = list(pages)
        self.wrong, self.endless = set(wrong), set(endless)
        self.gold: dict[str, list[str]] = {}
        self.keys: dict[str, str] = {}
        for category in categories:
            for entry in load_agentic_category(category):
                text = entry.question[0][-1]["content"]
                self.gold[text], self.keys[text] = entry.possible_answer, web_question_key(entry.id)

    def reply(self, body: dict) -> Reply:
        messages = body["messages"]
        at = next((i for i, m in enumerate(messages) if m.get("role") == "user" and m.get("content") in self.gold),
                  None)
        if at is None:
            return completion("Noted.")
        question = messages[at]["content"]
        key = self.keys[question]
        step = sum(1 for m in messages[at:] if m.get("role") == "assistant")
        if key in self.endless or step == 0:
            return call_reply(body, "search_engine_query", {"keywords": f"{question[:60]} (step {step})"
                                                             if key in self.endless else question[:80]})
        if step == 1:
            number = int(key) if key.isdigit() else 0
            return call_reply(body, "fetch_url_content", {"url": self.pages[number % len(self.pages)],
                                                          "mode": FETCH_MODES[number % len(FETCH_MODES)]})
        answer = "I do not know" if key in self.wrong else self.gold[question][0]
        return answer_reply(answer, "from the web")
