"""A GAIA tool-agent run against a scripted endpoint, exported as an Inspect AI log: what the export's
tests read back, score again with `inspect score` and open in Inspect View."""

from __future__ import annotations

import json
from pathlib import Path

from peers import settings_for

from evalui.core.registry import get
from evalui.run import lifecycle
from support.openai_peer import ScriptedPeer, completion, first_user_text, tool_outputs

QUESTIONS = [
    {"task_id": "mult", "Question": "What is six times seven? Use python.", "Final answer": "42", "Level": 1},
    {"task_id": "colour", "Question": "What colour is the sky at noon on Mars?", "Final answer": "butterscotch",
     "Level": 2},
    # GAIA's scorer reads numbers without their separators: right in evalui and in Inspect alike.
    {"task_id": "metres", "Question": "How many metres are in a kilometre?", "Final answer": "1000", "Level": 1},
    {"task_id": "refused", "Question": "Which password opens the vault?", "Final answer": "swordfish", "Level": 2},
    {"task_id": "hidden", "Question": "What colour is this test's answer?", "Final answer": "?", "Level": 3},
]
REFUSAL = "I'm sorry, but I can't help with that request."


def gaia_script(body, n):
    question, outputs = first_user_text(body), tool_outputs(body)
    if "six times seven" in question:
        if not outputs:
            return completion("", tool_calls=[("python", json.dumps({"code": "print(6 * 7)"}))], prompt_tokens=90,
                              completion_tokens=12)
        printed = outputs[-1].split("stdout:\n", 1)[1].split("\n", 1)[0].strip()
        return completion(f"The program printed it.\nFINAL ANSWER: {printed}")
    if "kilometre" in question:
        return completion("A kilometre is a thousand metres.\nFINAL ANSWER: 1,000")
    if "password" in question:
        return completion(REFUSAL)
    return completion("FINAL ANSWER: blue")


def run_gaia(store, folder: Path, exp_id: str) -> dict:
    """The run, through the shared lifecycle as every command runs it; returns its summary."""
    questions = folder / "questions.json"
    questions.write_text(json.dumps(QUESTIONS))
    benchmark = get("gaia")
    options = benchmark.make_options({"source": f"questions:{questions}", "tools": ["python"], "tool_timeout": 30})
    with ScriptedPeer(gaia_script) as peer:
        settings = settings_for(peer)
        lifecycle.prepare(store, benchmark, options, settings, exp_id=exp_id)
        return lifecycle.execute(store, exp_id, settings, concurrency=2)
