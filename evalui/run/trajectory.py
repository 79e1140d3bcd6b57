"""What a task's call returns: its output for the judge, and every step it took to get there.

A step is one model call: the messages it added to the conversation, the model's reply (text and
tool calls), the results of the tools it ran, its tokens and its latency. Single-reply benchmarks
have one step; an agent has many. The store keeps the steps per sample, and the exports, reports
and the sample inspector read them.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from evalui.endpoint.client import ChatReply


@dataclass
class Step:
    messages: list[dict] = field(default_factory=list)  # what this step added before the model answered
    text: str = ""
    tool_calls: list[dict] = field(default_factory=list)  # [{"name", "arguments"}]
    tool_results: list[dict] = field(default_factory=list)  # [{"name", "content", "error"}]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = 1
    note: str = ""  # why the task did not accept this reply, when it did not
    finish_reason: str = ""  # the endpoint's: "length" is a reply cut at the token cap

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class TaskResult:
    """``output`` is what the task's judge reads; ``steps`` is how the task got it."""

    output: dict
    steps: list[Step] = field(default_factory=list)
    latency_s: float | None = None  # wall time of the whole call; the steps' sum when not given

    @property
    def prompt_tokens(self) -> int:
        return sum(s.prompt_tokens for s in self.steps)

    @property
    def completion_tokens(self) -> int:
        return sum(s.completion_tokens for s in self.steps)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def attempts(self) -> int:
        return sum(s.attempts for s in self.steps)

    @property
    def wall_s(self) -> float:
        return self.latency_s if self.latency_s is not None else sum(s.latency_s for s in self.steps)

    def trajectory(self) -> list[dict]:
        return [s.as_dict() for s in self.steps]


def stored_steps(steps: list) -> list:
    """Steps as the store writes them: Step dataclasses go to orjson as they are (a deep copy
    through dataclasses.asdict cost a tenth of a sample's time); anything else as its dict."""
    return list(steps) if all(type(s) is Step for s in steps) else [s.as_dict() for s in steps]


def reply_output(reply: ChatReply) -> dict:
    return {"text": reply.text, "tool_calls": [{"name": c.name, "arguments": c.arguments} for c in reply.tool_calls]}


def step_of(reply: ChatReply, messages: list[dict]) -> Step:
    output = reply_output(reply)
    return Step(messages=list(messages), text=output["text"], tool_calls=output["tool_calls"],
                prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                latency_s=reply.latency_s, attempts=reply.attempts, finish_reason=reply.finish_reason)


def single_reply(reply: ChatReply, messages: list[dict] | None) -> TaskResult:
    """A one-step result: the reply's text and tool calls are the output."""
    return TaskResult(reply_output(reply), [step_of(reply, messages or [])], reply.latency_s)


class Recorder:
    """Calls the model and records each call as a step; tasks with several calls use one per sample."""

    def __init__(self, client):
        self.client = client
        self.steps: list[Step] = []
        self._sent = 0  # how many messages of the conversation earlier steps already recorded
        self._started = time.perf_counter()

    def chat(self, messages: list[dict], *, new_conversation: bool = False, **options) -> ChatReply:
        """One model call. Only the messages not recorded by the previous step are stored with it
        (``new_conversation`` starts counting again, for a task that asks a fresh question)."""
        if new_conversation or len(messages) < self._sent:
            self._sent = 0
        reply = self.client.chat(messages, **options)
        self.steps.append(step_of(reply, messages[self._sent:]))
        self._sent = len(messages) + 1  # the reply itself is the next message
        return reply

    def reject_last(self, why: str) -> None:
        if self.steps:
            self.steps[-1].note = why

    def result(self, output: dict) -> TaskResult:
        return TaskResult(output, self.steps, time.perf_counter() - self._started)
