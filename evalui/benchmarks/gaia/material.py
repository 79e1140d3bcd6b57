"""What a GAIA sample showed the model, sorted for the validity scanners (evalui.scanners.material).

GAIA's questions are written so that the answer is found in what the task gives or lets the model
fetch: the bundled sample's task 0005 attaches ``cities.json`` because finding "Marseille" there is
the task. So the attachment and every tool's result (the file read, a program's output, a page
fetched or searched) are the task's own material, and never make a sample invalid. What must not hold
the gold answer is the question itself, GAIA's instructions, and the other fields of the record a
user's agent is handed. A tool's result is suspect only where it, or the call that asked for it,
names GAIA's own answers: the dataset's repository on the Hub, or this task's id (leaderboard
submissions list answers by task id). An agent that looks the item up there has not done the task
(HAL's agents found GAIA's answers on the Hub), and a person should look. The files tool reads
nothing but the task's attachment, so it is never suspect.
"""

from __future__ import annotations

from evalui.benchmarks.gaia.data import HF_REPO, UNKNOWN_ANSWER
from evalui.scanners.base import steps_of, text_of
from evalui.scanners.material import GUARDED, MATERIAL, QUESTION, SUSPECT, Material, Part

ATTACHMENT_TOOLS = ("files",)
# Words that name where GAIA's answers are published; matched in lower case.
ANSWER_SHEETS = (HF_REPO.split("/")[0].lower(),)
# Shorter ids ("q0001", made up for a questions file without ids) turn up in pages by chance.
DISTINCT_ID_CHARS = 8
SUSPECT_REASON = ("it names GAIA's own answers (its dataset on the Hub, or this task's id), not the sources the task "
                  "means")
RECORD_FIELDS = ("task_id", "Question", "question", "Level", "file_name", "file_path")  # the task's own, not extra


def _target(payload: dict) -> str | None:
    answer = payload.get("final_answer")
    return None if answer in (None, "", UNKNOWN_ANSWER) else str(answer)


def _names_answer_sheet(text: str, task_id: str, file_name: str) -> bool:
    lowered = text.lower()
    if any(name in lowered for name in ANSWER_SHEETS):
        return True
    if file_name:  # GAIA names attachments by task id: a program that opens one names the id too
        lowered = lowered.replace(file_name.lower(), "")
    return len(task_id) >= DISTINCT_ID_CHARS and task_id.lower() in lowered


def _prompt_parts(request: dict) -> list[Part]:
    parts = []
    for message in request.get("messages") or []:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "system":
            parts.append(Part(GUARDED, "GAIA's instructions", text_of(message.get("content")),
                              reason="evalui's own instructions are the same for every task"))
        elif message.get("role") == "user":
            # The question is guarded on its own (below); the rest of the turn is the attachment.
            parts.append(Part(MATERIAL, "the question's turn and its attached file", text_of(message.get("content"))))
    record = request.get("record")
    if isinstance(record, dict):  # a user's agent: it is handed GAIA's record, not messages
        for name, value in record.items():
            if name not in RECORD_FIELDS:
                parts.append(Part(GUARDED, f"the record's field {name!r}", text_of(value),
                                  reason="the record handed to the agent passes the dataset's other fields on"))
    return parts


def _tool_parts(sample, task_id: str, file_name: str) -> list[Part]:
    parts = []
    steps = steps_of(sample)
    for index, step in enumerate(steps[:-1]):  # a step's results are read by the steps after it
        results = [r for r in step.get("tool_results") or [] if isinstance(r, dict)]
        calls = step.get("tool_calls") or []
        for position, result in enumerate(results):
            name, content = str(result.get("name") or "?"), text_of(result.get("content"))
            where = f"the {name} tool's result"
            if name in ATTACHMENT_TOOLS:
                parts.append(Part(MATERIAL, where, content, index))
                continue
            # In the text protocol the calls are in the reply's text, not in its tool calls.
            call = calls[position] if len(calls) == len(results) and isinstance(calls[position], dict) else None
            asked = text_of(call.get("arguments")) if call else text_of(step.get("text"))
            suspect = any(_names_answer_sheet(text, task_id, file_name) for text in (asked, content))
            parts.append(Part(SUSPECT, where, content, index, SUSPECT_REASON) if suspect
                         else Part(MATERIAL, where, content, index))
    return parts


def sample_material(sample) -> Material:
    """The GAIA spec's ``material``: the gold answer (None when hidden), the question, and the rest."""
    payload = getattr(sample, "payload", None) or {}
    request = getattr(sample, "request", None)
    task_id = str(payload.get("task_id") or "")
    parts = [Part(QUESTION, "the question", str(payload.get("question") or ""))]
    request = dict(request) if isinstance(request, dict) else {}
    if not request.get("messages") and not request.get("record"):  # a request stored without its messages
        first = steps_of(sample)[:1]
        request["messages"] = first[0].get("messages") or [] if first else []
    parts += _prompt_parts(request)
    parts += _tool_parts(sample, task_id, str(payload.get("file_name") or ""))
    return Material(_target(payload), tuple(parts))
