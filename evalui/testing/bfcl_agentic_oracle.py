"""A script that plays BFCL memory conversations for the scripted peer: it stores every prereq turn
in memory, and answers each question after one memory call, with the gold answer or a wrong one.

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
from evalui.testing.openai_peer import Reply, completion

# (function that stores a turn, function the question calls first), per backend's function names.
STORE_AND_RECALL = (("archival_memory_add", "core_memory_retrieve_all"), ("memory_append", "memory_retrieve"))


def question_key(entry_id: str) -> str:
    """``memory_kv_3-customer-3`` → ``3-customer-3``: the same question in every memory category."""
    return re.sub(r"^memory_[a-z_]+?_(?=\d)", "", entry_id)


class MemoryOracle:
    def __init__(self, categories: list[str], *, wrong: set[str] = frozenset(), endless: set[str] = frozenset()):
        """``wrong``: question keys answered with a wrong answer; ``endless``: keys that never stop calling."""
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

    @staticmethod
    def _call(body: dict, name: str, arguments: dict) -> Reply:
        if body.get("tools"):
            return completion(None, [(name, json.dumps(arguments))])
        return completion("[" + name + "(" + ", ".join(f"{k}={v!r}" for k, v in arguments.items()) + ")]")

    def _question(self, body: dict) -> str | None:
        return next((m["content"] for m in body["messages"] if m.get("role") == "user" and m["content"] in self.gold),
                    None)

    def reply(self, body: dict) -> Reply:
        last = body["messages"][-1]
        store, recall = self._functions(body)
        question = self._question(body)
        key = self.keys.get(question or "")
        if key in self.endless:
            return self._call(body, recall, {})
        if last.get("role") == "user" and last.get("content") in self.prereq_turns:
            text = last["content"][:1500]
            arguments = {"text": text} if store == "memory_append" else {
                "key": f"note_{zlib.crc32(text.encode())}", "value": text}
            return self._call(body, store, arguments)
        if last.get("role") == "user" and last.get("content") == question:
            return self._call(body, recall, {})
        if question is None:
            return completion("Noted.")
        answer = "I do not know" if key in self.wrong else self.gold[question][0]
        return completion(json.dumps({"answer": answer, "context": "from memory"}).replace('"', "'"))
