"""A scripted model for BFCL multi-turn conversations: it answers each turn with that turn's gold
calls (or a perturbed copy), then with text, so the conversation moves to the next turn."""

from __future__ import annotations

import json
from collections.abc import Callable

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.gold import prompt_text
from support.bfcl_oracle import gold_turns
from support.openai_peer import Reply, completion

TOOL_RESULTS_PREFIX = "[{'role': 'tool'"  # prompt mode sends execution results as a user message

# (entry, turn index, gold calls of the turn) -> the calls to answer with
Perturbation = Callable[[object, int, list], list]


def _turn_starts(messages: list[dict]) -> list[dict]:
    return [m for m in messages if m.get("role") == "user"
            and not str(m.get("content") or "").startswith(TOOL_RESULTS_PREFIX)]


class MultiTurnOracle:
    """Finds a request's entry among the given categories' entries: by its turn-start user messages
    so far, and by the functions offered (FC tool names, or the prompt-mode system prompt). Entries
    that look alike up to a turn must have the same gold calls for that turn, or the request is
    ``ambiguous`` (its ids are collected there, and the first candidate answers)."""

    def __init__(self, categories: list[str], limit: int | None = None, perturb: Perturbation | None = None):
        from evalui.benchmarks.bfcl.multi_turn.play import Conversation

        self.perturb = perturb
        self.by_first: dict[str, list] = {}
        self._expected: dict[tuple[str, str], dict] = {}
        for category in categories:
            for entry in load_category(category)[:limit]:
                self.by_first.setdefault(self.key(entry.question[0]), []).append(entry)
                for mode in ("fc", "prompt"):
                    self._expected[entry.id, mode] = self._expectation(Conversation, entry, mode)
        self._gold: dict[str, list] = {}
        self.ambiguous: set[tuple[str, ...]] = set()

    @staticmethod
    def _expectation(conversation_class, entry, mode: str) -> dict:
        conversation = conversation_class(entry, mode)
        starts, tools = [], []
        for index, turn in enumerate(entry.question):
            before = len(conversation.messages)
            conversation.start_turn(index, turn)
            starts.append(next(m["content"] for m in reversed(conversation.messages[before:]) if m["role"] == "user"))
            tools.append(sorted(t["function"]["name"] for t in conversation.tools or []))
        system = conversation.messages[0]["content"] if conversation.messages[0]["role"] == "system" else None
        return {"starts": starts, "tools": tools, "system": system}

    @staticmethod
    def key(first_turn: list[dict]) -> str:
        return next((m["content"] for m in first_turn if m.get("role") == "user"), "")

    def _fits(self, entry, body: dict, mode: str, starts: list[str]) -> bool:
        expected = self._expected[entry.id, mode]
        turn = len(starts) - 1
        if starts != expected["starts"][:len(starts)] or turn >= len(expected["starts"]):
            return False
        if mode == "fc":
            return sorted(t["function"]["name"] for t in body.get("tools") or []) == expected["tools"][turn]
        return body["messages"][0].get("content") == expected["system"]

    def entry_for(self, body: dict):
        messages = body.get("messages", [])
        starts = [m["content"] for m in _turn_starts(messages)]
        if not starts:
            return None
        mode = "fc" if body.get("tools") else "prompt"
        candidates = [e for e in self.by_first.get(starts[0], []) if self._fits(e, body, mode, starts)]
        if not candidates:
            return None
        turn = len(starts) - 1
        if len({json.dumps(self.gold(e)[turn]) for e in candidates}) > 1:
            self.ambiguous.add(tuple(sorted(e.id for e in candidates)))
        return candidates[0]

    def gold(self, entry) -> list:
        if entry.id not in self._gold:
            self._gold[entry.id] = gold_turns(entry)
        return self._gold[entry.id]

    def position(self, body: dict) -> tuple[int, int]:
        """(turn index, step index within the turn) of the request."""
        messages = body.get("messages", [])
        starts = [i for i, m in enumerate(messages) if m.get("role") == "user"
                  and not str(m.get("content") or "").startswith(TOOL_RESULTS_PREFIX)]
        step = sum(1 for m in messages[starts[-1]:] if m.get("role") == "assistant")
        return len(starts) - 1, step

    def reply(self, body: dict) -> Reply:
        entry = self.entry_for(body)
        if entry is None:
            return completion("I do not know this conversation.")
        turn, step = self.position(body)
        calls = self.gold(entry)[turn]
        if self.perturb is not None:
            calls = self.perturb(entry, turn, [(name, dict(args)) for name, args in calls])
        if step > 0 or not calls:
            return completion("Done.")
        if body.get("tools"):
            return completion(None, [(name, json.dumps(args)) for name, args in calls])
        return completion(prompt_text(calls))
