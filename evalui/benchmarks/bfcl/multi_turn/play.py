"""One multi-turn conversation, played as bfcl-eval's ``inference_multi_turn_FC`` / ``_prompting``
play it for OpenAI-style chat models.

Per user turn: send the conversation, decode the reply, run its calls on the sample's own backends,
send the results back, until the model answers without a call (or with something that does not
decode). A turn has at most ``MAXIMUM_STEP_LIMIT`` steps; past that the conversation stops and the
entry fails as force-terminated. In miss_func, the held-out docs arrive at their turn with bfcl's
own user prompt (as tools in FC mode; in the prompt in prompt mode, as upstream does).
"""

from __future__ import annotations

import copy
import dataclasses
import time

from evalui.benchmarks.bfcl.data import BfclEntry
from evalui.benchmarks.bfcl.isolated import IsolatedBackends
from evalui.benchmarks.bfcl.request import BFCL_EXTRA_BODY, official_tools
from evalui.benchmarks.bfcl.scoring.multi_turn import StepDecodeError, decode_step
from evalui.benchmarks.bfcl.scoring.safe_calls import UnsafeExpression
from evalui.endpoint.completion import EndpointError
from evalui.run.step_limits import SampleBudget, StepLimitExceeded, shrink_step
from evalui.run.trajectory import Step, TaskResult, step_of


def _official_prompts():
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()
    from bfcl_eval.constants import default_prompts
    from bfcl_eval.model_handler.utils import (
        decoded_output_to_execution_list,
        format_execution_results_prompting,
        system_prompt_pre_processing_chat_model,
    )

    return default_prompts, system_prompt_pre_processing_chat_model, decoded_output_to_execution_list, \
        format_execution_results_prompting


class Conversation:
    """The growing chat of one sample, and what each step added to it: the updates of bfcl's
    OpenAI chat-completions handler (``_add_*_FC`` / ``_add_*_prompting``), made with its functions."""

    def __init__(self, entry: BfclEntry, mode: str):
        self.entry, self.mode = entry, mode
        self.prompts, self.system_prompt, self._execution_list, self._results_prompting = _official_prompts()
        self.functions = copy.deepcopy(entry.functions)
        self.messages: list[dict] = []
        self.unsent: list[dict] = []  # added since the last request: stored with the next step
        self.tools = official_tools(self.functions) if mode == "fc" else None
        self.extra_body = BFCL_EXTRA_BODY
        self._call_ids: list = []  # the last reply's tool call ids, which its results refer to

    def add(self, *messages: dict) -> None:
        self.messages.extend(messages)
        self.unsent.extend(messages)

    def start_turn(self, index: int, turn_messages: list[dict]) -> None:
        turn_messages = copy.deepcopy(turn_messages)
        held_out = self.entry.missed_function.get(str(index))
        if held_out:
            if self.mode == "fc":
                self.functions.extend(held_out)
                self.tools = official_tools(self.functions)
                text = self.prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
            else:
                text = self.prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING.format(functions=held_out)
            turn_messages = [{"role": "user", "content": text}]
        if index == 0 and self.mode == "prompt":
            turn_messages = self.system_prompt(turn_messages, self.functions, self.entry.id)
        self.add(*turn_messages)

    def raw_output(self, reply) -> object:
        """The step's result-file value: FC tool calls as [{name: arguments_json}], else the text."""
        if self.mode == "fc" and reply.tool_calls:
            return [{call.name: call.arguments} for call in reply.tool_calls]
        return reply.text

    def add_reply(self, reply, step_index: int) -> None:
        """The endpoint's own message, sent back as it came (bfcl appends the SDK's message object,
        which the SDK sends with every field the endpoint set)."""
        self._call_ids = [call.id for call in reply.tool_calls]
        message = reply.message
        if message is None:  # a reply that did not come from an endpoint's JSON
            message = {"role": "assistant", "content": reply.text or None}
            if reply.tool_calls:
                message["tool_calls"] = [{"id": call.id, "type": "function",
                                          "function": {"name": call.name, "arguments": call.arguments}}
                                         for call in reply.tool_calls]
        self.messages.append(message)

    def add_results(self, calls, results: list[str], step_index: int) -> None:
        if self.mode == "fc":  # _add_execution_results_FC: one tool message per result and call id
            self.add(*({"role": "tool", "content": result, "tool_call_id": call_id}
                       for result, call_id in zip(results, self._call_ids)))
        else:  # _add_execution_results_prompting: the calls as bfcl's decoder writes them, with their results
            decoded = self._execution_list([{call.name: call.arguments} for call in calls])
            text = self._results_prompting(None, results, {"model_responses_decoded": decoded})
            self.add({"role": "user", "content": text})


@dataclasses.dataclass
class Played:
    """What a conversation's turns left: every step, each turn's official outputs, and how it stopped."""
    steps: list[Step] = dataclasses.field(default_factory=list)
    turns: list[list] = dataclasses.field(default_factory=list)
    step_turns: list[int] = dataclasses.field(default_factory=list)
    force_terminated: bool = False
    limit_exceeded: str = ""  # too_many_calls or too_large: the conversation stops at that step

    def output(self, **extra) -> dict:
        output = {"turns": self.turns, **extra, "force_terminated": self.force_terminated}
        if self.limit_exceeded:
            output["limit_exceeded"] = self.limit_exceeded
        return output


async def play_turns(client, conversation: Conversation, allowed, run_call, *,
                     answer_note: str = "no calls, turn ends") -> Played:
    """Every user turn of the conversation's entry: ask, decode, run the calls with ``run_call``
    (awaitable, returning the result text and an error code), send the results back, until a step
    does not decode into calls; past bfcl's step limit in one turn, the conversation stops."""
    mode, limit = conversation.mode, conversation.prompts.MAXIMUM_STEP_LIMIT
    played, budget = Played(), SampleBudget()
    for turn_index, turn_messages in enumerate(conversation.entry.question):
        conversation.start_turn(turn_index, turn_messages)
        outputs: list = []
        played.turns.append(outputs)
        count = 0
        while True:
            try:
                reply = await client.achat(conversation.messages, tools=conversation.tools,
                                           extra_body=conversation.extra_body)
            except EndpointError as exc:
                exc.steps = played.steps  # the conversation so far is kept with the error
                raise
            step = step_of(reply, conversation.unsent)
            conversation.unsent = []
            played.steps.append(step)
            played.step_turns.append(turn_index)
            try:
                budget.check(reply.text, reply.tool_calls)
            except StepLimitExceeded as exc:
                played.limit_exceeded = _stop_at_flood(step, outputs, exc)
                break
            outputs.append(conversation.raw_output(reply))
            conversation.add_reply(reply, len(played.steps))
            try:
                calls = decode_step(outputs[-1], mode, allowed)
            except (StepDecodeError, UnsafeExpression) as exc:
                answered_in_words = mode == "fc" and isinstance(outputs[-1], str)
                step.note = answer_note if answered_in_words else f"not decoded, turn ends: {exc}"[:500]
                break
            if not calls:
                step.note = answer_note
                break
            try:
                budget.check_count(calls)  # prompt mode: counted once decoded
            except StepLimitExceeded as exc:
                played.limit_exceeded = _stop_at_flood(step, outputs, exc, replace_last=True)
                break
            results = []
            for call in calls:
                result, error = await run_call(call)
                results.append(result)
                step.tool_results.append({"name": call.shown(), "content": result, "error": error})
                if error in STOPPING_ERRORS:
                    played.limit_exceeded = error
                    step.note = result[:500]
                    break
            if played.limit_exceeded:
                break
            conversation.add_results(calls, results, len(played.steps))
            count += 1
            if count > limit:
                played.force_terminated = True
                step.note = f"force-terminated after {limit} steps in one turn"
                break
        if played.force_terminated or played.limit_exceeded:
            break
    return played


async def play(client, entry: BfclEntry, mode: str, pool=None) -> TaskResult:
    """Play every turn of ``entry``; the output holds the official per-turn result and the step map."""
    started = time.perf_counter()
    conversation = Conversation(entry, mode)
    async with IsolatedBackends(entry, pool, model_name_of(client)) as backends:
        played = await play_turns(client, conversation, backends.allowed, backends.arun)
    return TaskResult(played.output(step_turns=played.step_turns), played.steps, time.perf_counter() - started)


def model_name_of(client) -> str:
    """The model's name as the run's endpoint knows it: bfcl names its backend instances after it."""
    settings = getattr(client, "settings", None)
    return str(getattr(settings, "model", "") or "")


TOO_SLOW = "too_slow"  # the sample's calls used up their time budget: the conversation stops there
# Errors of a call after which the conversation stops: its time budget is spent (multi-turn), or a
# memory backend would hold more than evalui allows (agentic).
STOPPING_ERRORS = (TOO_SLOW, "too_large")
_STOPPED = {TOO_SLOW: "The sample's calls took longer together than evalui allows one sample, and the conversation "
                      "was stopped there."}


def stopped_message(kind: str) -> str:
    """Why a conversation stopped at one of evalui's limits, for its verdict."""
    return _STOPPED.get(kind, "The model's reply went past evalui's limits for one step or one sample, and the "
                              "conversation was stopped there.")


def _stop_at_flood(step: Step, outputs: list, exc: StepLimitExceeded, replace_last: bool = False) -> str:
    """Store a note in place of an oversized step; the result file gets the note, not the flood."""
    shrink_step(step, str(exc))
    if replace_last:
        outputs.pop()
    outputs.append(f"[evalui: {exc}]")
    return exc.kind
