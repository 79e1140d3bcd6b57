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
import time

from evalui.benchmarks.bfcl.agentic.backends import AgenticBackend, with_memory_instructions
from evalui.benchmarks.bfcl.data import BfclEntry
from evalui.benchmarks.bfcl.multi_turn.play import Conversation, play_turns
from evalui.run.trajectory import TaskResult


async def play_agentic(client, entry: BfclEntry, mode: str, backend) -> TaskResult:
    """Play every turn of ``entry`` on ``backend`` (an AgenticBackend in this process, or an
    IsolatedMemory in a worker); the output holds the official result (one list of step outputs per
    turn) and whether the step limit stopped it."""
    started = time.perf_counter()
    if isinstance(backend, AgenticBackend):
        shown = with_memory_instructions(entry, backend.instance)
    else:
        shown = await asyncio.to_thread(backend.memory_entry)
    conversation = Conversation(shown, mode)

    async def run_call(call):
        return await asyncio.to_thread(backend.run, call)

    played = await play_turns(client, conversation, backend.allowed, run_call, answer_note="no calls: the answer")
    return TaskResult(played.output(), played.steps, time.perf_counter() - started)
