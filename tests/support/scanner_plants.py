"""Planted transcripts for the validity scanners: GAIA questions (asked of the built-in tool agent)
and a scripted model that misbehaves on each one as its case says, so that real runs against a
scripted endpoint produce every kind of invalid or suspicious sample, and close look-alikes that
are not.

A case's ``expected`` is its label: {scanner: severity} that a correct scanner reports on it, and
nothing else. tests/integration/scanners/test_scan_planted.py plants one of each; bench/scanner_precision.py
plants hundreds, with varied wording, and measures the scanners against the labels.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from support.openai_peer import Reply, completion, error, first_user_text, tool_outputs

# What the model does, by case kind; the expected findings (scanner -> severity) of each.
KINDS: dict[str, dict[str, str]] = {
    "right": {},
    "wrong": {},
    "endpoint_error": {"endpoint_error": "invalid"},
    "refusal": {"refusal": "warning"},
    "empty": {"empty_reply": "invalid"},
    "truncated": {"truncated": "invalid"},
    "format": {"format_failure": "warning"},
    "loop": {"loop": "warning"},
    "step_limit": {"step_limit": "warning"},
    "leak": {"answer_in_context": "invalid"},
    "tool_leak": {"answer_in_context": "warning"},  # a program prints the item's row of GAIA's own dataset
    "missing_file": {"tool_error": "invalid"},
    # Look-alikes that no scanner should flag.
    "apology_then_answer": {},  # "I'm sorry, but I can't find …" and then a FINAL ANSWER
    "repeat_success": {},  # the same call three times, each one succeeding
    "bad_arguments_once": {},  # a tool error of the model's own, then the right answer
    "short_answer_in_question": {},  # a short answer that the question mentions by chance
    "long_reasoning_wrong": {},  # a long wrong answer that says what it cannot do on the way
    "tool_found": {},  # the answer found by a program of the model's own: the task's material, no leak
}
MAX_STEPS = 4  # the agent's step limit in these runs: a loop of three failing calls fits, the step-limit case does not

_WORDS = ("amber", "basalt", "cobalt", "dahlia", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel",
          "lantern", "meadow", "nectar", "orchid", "pewter", "quartz", "raven", "saffron", "tundra", "umber",
          "velvet", "willow", "zephyr")
_REFUSALS = ("I'm sorry, but I can't help with that request.",
             "I cannot assist with this request.",
             "I am sorry, but I am unable to help with that.",
             "As an AI, I can't provide that information.",
             "I must decline to answer this question.")
_APOLOGIES = ("I'm sorry, but I can't find a definitive source for this; my best estimate follows.",
              "I am afraid I cannot verify it online, but the records point one way.")
_CUT = ("Let me work through this carefully. First, the question asks about", "To find this we need to consider the",
        "Step 1: identify the relevant records. Step 2: compare the")


@dataclass
class Case:
    task_id: str
    kind: str
    question: str
    answer: str
    decoy: str
    file_name: str = ""
    wording: int = 0
    expected: dict[str, str] = field(default_factory=dict)

    def record(self) -> dict:
        record = {"task_id": self.task_id, "Question": self.question, "Final answer": self.answer, "Level": 1}
        if self.file_name:
            record["file_name"] = self.file_name  # never written: the attachment is missing
        return record


def make_case(task_id: str, kind: str, rng: random.Random) -> Case:
    first, second = rng.sample(_WORDS, 2)
    answer, decoy = f"{first}{rng.randint(10, 99)}", f"{second}{rng.randint(10, 99)}"
    topic = rng.choice(("the museum's catalogue", "the 1998 survey", "the harbour register", "the expedition log"))
    question = f"[{task_id}] Which code name does {topic} give to item {rng.randint(100, 999)}?"
    file_name = ""
    if kind == "leak":
        question += f" (Hint from the editor: it is {answer}.)"
    elif kind == "missing_file":
        file_name = f"{task_id}.txt"
        question += " The attached file lists them."
    elif kind == "short_answer_in_question":
        count = rng.randint(2, 9)
        answer = str(count)
        question = f"[{task_id}] The log has {count} entries for {topic} and {count + 3} for the harbour. How many are for {topic}?"
    return Case(task_id, kind, question, answer, decoy, file_name, rng.randrange(1000), dict(KINDS[kind]))


def cases_for(kinds: list[str], seed: int = 0, prefix: str = "p") -> list[Case]:
    rng = random.Random(seed)
    return [make_case(f"{prefix}{i:03d}", kind, rng) for i, kind in enumerate(kinds)]


def write_questions(folder: Path, cases: list[Case]) -> Path:
    path = Path(folder) / "questions.json"
    path.write_text(json.dumps([c.record() for c in cases]), encoding="utf-8")
    return path


def _reply(text: str | None, finish_reason: str, tool_calls=None) -> Reply:
    reply = completion(text, tool_calls, prompt_tokens=60, completion_tokens=25)
    reply.body["choices"][0]["finish_reason"] = finish_reason
    return reply


def _python(code: str) -> Reply:
    return completion("", tool_calls=[("python", json.dumps({"code": code}))], prompt_tokens=60, completion_tokens=20)


class PlantedModel:
    """The scripted endpoint's answers: each case's behaviour, found by its id in the question."""

    def __init__(self, cases: list[Case]):
        self.cases = {c.task_id: c for c in cases}

    def case_for(self, body: dict) -> Case | None:
        question = first_user_text(body)
        if question.startswith("[") and "]" in question:
            return self.cases.get(question[1:question.index("]")])
        return None

    def __call__(self, body: dict, number: int) -> Reply:
        case = self.case_for(body)
        if case is None:
            return completion("OK")
        outputs = tool_outputs(body)
        return getattr(self, f"_{case.kind}")(case, outputs)

    # behaviours ---------------------------------------------------------------------------------
    def _right(self, case, outputs):
        return completion(f"I checked {case.wording % 7 + 2} sources.\nFINAL ANSWER: {case.answer}")

    def _wrong(self, case, outputs):
        return completion(f"FINAL ANSWER: {case.decoy}")

    def _endpoint_error(self, case, outputs):
        return error(500, "scripted outage")

    def _refusal(self, case, outputs):
        return completion(_REFUSALS[case.wording % len(_REFUSALS)])

    def _empty(self, case, outputs):
        return completion("" if case.wording % 2 else None)

    def _truncated(self, case, outputs):
        return _reply(_CUT[case.wording % len(_CUT)], "length")

    def _format(self, case, outputs):
        return completion(f"After reading the records, I believe the code name is {case.answer}.")

    def _loop(self, case, outputs):
        if len(outputs) < 3:
            return _python("import sys\nsys.exit('the records file is locked')")
        return completion(f"FINAL ANSWER: {case.decoy}")

    def _step_limit(self, case, outputs):
        return _python(f"print({len(outputs)} + 1)")

    def _leak(self, case, outputs):
        return self._right(case, outputs)

    def _tool_leak(self, case, outputs):
        if not outputs:
            return _python(f"print('gaia-benchmark/GAIA, validation, task {case.task_id}: Final answer {case.answer}')")
        return self._right(case, outputs)

    def _tool_found(self, case, outputs):
        if not outputs:
            return _python(f"print('register entry: {case.answer}')")
        return self._right(case, outputs)

    def _missing_file(self, case, outputs):
        if not outputs:
            return completion("", tool_calls=[("files", json.dumps({"name": case.file_name}))])
        return completion(f"FINAL ANSWER: {case.decoy}")

    def _apology_then_answer(self, case, outputs):
        return completion(f"{_APOLOGIES[case.wording % len(_APOLOGIES)]}\nFINAL ANSWER: {case.decoy}")

    def _repeat_success(self, case, outputs):
        if len(outputs) < 3:
            return _python("print('checked')")
        return self._right(case, outputs)

    def _bad_arguments_once(self, case, outputs):
        if not outputs:
            return completion("", tool_calls=[("python", json.dumps({"code": ""}))])
        return self._right(case, outputs)

    def _short_answer_in_question(self, case, outputs):
        return self._right(case, outputs)

    def _long_reasoning_wrong(self, case, outputs):
        filler = " ".join(f"Record {i} does not mention it." for i in range(40))
        return completion(f"I can't open the archive itself, so I reasoned from the index. {filler}\n"
                          f"FINAL ANSWER: {case.decoy}")


class OtherModel:
    """Another model on the same cases, for ``unsolvable``: right on every case but the ``hard`` ones."""

    def __init__(self, cases: list[Case], hard: set[str]):
        self.cases, self.hard = {c.task_id: c for c in cases}, hard

    def __call__(self, body: dict, number: int) -> Reply:
        question = first_user_text(body)
        task_id = question[1:question.index("]")] if question.startswith("[") and "]" in question else ""
        case = self.cases.get(task_id)
        if case is None:
            return completion("OK")
        return completion(f"FINAL ANSWER: {case.decoy if task_id in self.hard else case.answer}")


def wait_a_moment() -> None:
    """A test's runs get distinct creation times (the store lists runs newest first)."""
    time.sleep(0.01)


# BFCL (prompt mode): the same kinds on single-turn entries, chosen by the entry's number --------
BFCL_KINDS: dict[str, dict[str, str]] = {
    "right": {},
    "wrong": {},
    "broken_call": {"format_failure": "warning"},  # the gold call without its closing parenthesis
    "prose": {},  # words instead of a call: a failure, but no call was there to decode
    "truncated": {"truncated": "invalid"},  # the same broken call, cut at the token cap
    "empty": {"empty_reply": "invalid"},
    "refusal": {"refusal": "warning"},
    "endpoint_error": {"endpoint_error": "invalid"},
}


class BfclPlantedModel:
    """Answers simple_python entries in prompt mode as ``kind_of(entry number)`` says."""

    def __init__(self, offset: int = 0):
        from support.bfcl_oracle import BfclOracle

        self.oracle = BfclOracle(["simple_python"])
        self.offset = offset

    def kind_of(self, sample_id: str) -> str:
        number = int(sample_id.rsplit("_", 1)[1])
        return list(BFCL_KINDS)[(number + self.offset) % len(BFCL_KINDS)]

    def __call__(self, body: dict, number: int) -> Reply:
        entry = self.oracle.entry_for(body)
        if entry is None:
            return completion("OK")
        kind = self.kind_of(entry.id)
        if kind == "right":
            return self.oracle.gold_reply(body)
        if kind == "wrong":
            return self.oracle.wrong_reply(body)
        gold = self.oracle.gold_reply(body).body["choices"][0]["message"]["content"]
        broken = gold.rstrip().rstrip("]").rstrip(")")  # bfcl's decoder forgives a missing "]", not a ")"
        if kind == "broken_call":
            return completion(broken)
        if kind == "truncated":
            return _reply(broken, "length")
        if kind == "prose":
            return completion("I would need to know more about the inputs before calling any function.")
        if kind == "empty":
            return completion("")
        if kind == "refusal":
            return completion(_REFUSALS[int(entry.id.rsplit("_", 1)[1]) % len(_REFUSALS)])
        return error(500, "scripted outage")
