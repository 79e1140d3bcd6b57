"""One agentic conversation (a memory or web-search question, or a memory prereq conversation),
played as bfcl-eval's ``inference_multi_turn_FC`` / ``_prompting`` play it for OpenAI-style models.

As for multi-turn (evalui/benchmarks/bfcl/multi_turn/play.py, whose ``Conversation`` builds every
message with bfcl's own functions): per user turn, query, decode, run the calls on the backend, send
the results back, until a step does not decode into calls; past ``MAXIMUM_STEP_LIMIT`` (20) steps in
a turn the conversation stops, force-terminated. Memory conversations first get bfcl's memory
instructions (``add_memory_instruction_system_prompt``, with the core memory the backend loaded
from the scenario's snapshot) before the first request is built, as the handler adds them; a prereq
conversation ends by writing the backend's snapshot (``_flush_memory_to_local_file``).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import time

from evalui.benchmarks.bfcl.agentic.backends import AgenticBackend
from evalui.benchmarks.bfcl.data import BfclEntry
from evalui.benchmarks.bfcl.multi_turn.play import Conversation, _stop_at_flood
from evalui.benchmarks.bfcl.scoring.multi_turn import StepDecodeError, decode_step
from evalui.benchmarks.bfcl.scoring.safe_calls import UnsafeExpression
from evalui.engine.completion import EndpointError
from evalui.engine.step_limits import SampleBudget, StepLimitExceeded
from evalui.engine.trajectory import Step, TaskResult, step_of


def with_memory_instructions(entry: BfclEntry, instance) -> BfclEntry:
    """The entry with bfcl's memory system prompt in its first turn (memory categories only)."""
    if not entry.category.startswith("memory"):
        return entry
    from bfcl_eval.model_handler.utils import add_memory_instruction_system_prompt

    question = add_memory_instruction_system_prompt(copy.deepcopy(entry.question), entry.id.rsplit("_", 1)[0],
                                                    entry.initial_config["scenario"], instance)
    return dataclasses.replace(entry, question=question)


async def play_agentic(client, entry: BfclEntry, mode: str, backend: AgenticBackend) -> TaskResult:
    """Play every turn of ``entry`` on ``backend``; the output holds the official result (one list of
    step outputs per turn) and whether the step limit stopped it."""
    started = time.perf_counter()
    conversation = Conversation(with_memory_instructions(entry, backend.instance), mode)
    limit = conversation.prompts.MAXIMUM_STEP_LIMIT
    steps: list[Step] = []
    turns: list[list] = []
    force_terminated, limit_exceeded = False, ""
    budget = SampleBudget()
    for turn_index, turn_messages in enumerate(conversation.entry.question):  # memory instructions included
        conversation.start_turn(turn_index, turn_messages)
        outputs: list = []
        turns.append(outputs)
        count = 0
        while True:
            try:
                reply = await client.achat(conversation.messages, tools=conversation.tools,
                                           extra_body=conversation.extra_body)
            except EndpointError as exc:
                exc.steps = steps
                raise
            step = step_of(reply, conversation.unsent)
            conversation.unsent = []
            steps.append(step)
            try:
                budget.check(reply.text, reply.tool_calls)
            except StepLimitExceeded as exc:
                limit_exceeded = _stop_at_flood(step, outputs, exc)
                break
            outputs.append(conversation.raw_output(reply))
            conversation.add_reply(reply, len(steps))
            try:
                calls = decode_step(outputs[-1], mode, backend.allowed)
            except (StepDecodeError, UnsafeExpression) as exc:
                answered_in_words = mode == "fc" and isinstance(outputs[-1], str)
                step.note = "no calls: the answer" if answered_in_words else f"not decoded, turn ends: {exc}"[:500]
                break
            if not calls:
                step.note = "no calls: the answer"
                break
            try:
                budget.check_count(calls)
            except StepLimitExceeded as exc:
                limit_exceeded = _stop_at_flood(step, outputs, exc, replace_last=True)
                break
            results = []
            for call in calls:
                result, error = await asyncio.to_thread(backend.run, call)
                results.append(result)
                step.tool_results.append({"name": call.shown(), "content": result, "error": error})
            conversation.add_results(calls, results, len(steps))
            count += 1
            if count > limit:
                force_terminated = True
                step.note = f"force-terminated after {limit} steps in one turn"
                break
        if force_terminated or limit_exceeded:
            break
    output = {"turns": turns, "force_terminated": force_terminated}
    if limit_exceeded:
        output["limit_exceeded"] = limit_exceeded
    return TaskResult(output, steps, time.perf_counter() - started)
