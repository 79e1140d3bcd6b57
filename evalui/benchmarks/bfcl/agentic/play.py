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
from evalui.benchmarks.bfcl.multi_turn.play import Conversation, play_turns
from evalui.engine.trajectory import TaskResult


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

    async def run_call(call):
        return await asyncio.to_thread(backend.run, call)

    played = await play_turns(client, conversation, backend.allowed, run_call, answer_note="no calls: the answer")
    return TaskResult(played.output(), played.steps, time.perf_counter() - started)
