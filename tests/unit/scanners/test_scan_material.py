"""`answer_in_context` reads what a benchmark declares of a sample's parts (evalui.scanners.material):
each kind at its severity, the most severe first; and GAIA's and AIME's declarations on stored samples
(a GAIA user agent's record, a program that opens an attachment named by its task id, the judge)."""

from __future__ import annotations

import pytest

from evalui.benchmarks.aime.spec import JUDGING, WINRATE_SPEC
from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
from evalui.run.findings import spec_of
from evalui.scanners.base import ScanContext
from evalui.scanners.context import answer_in_context
from evalui.scanners.material import GUARDED, JUDGE, MATERIAL, QUESTION, SUSPECT, Material, Part
from evalui.store.rows import Sample

pytestmark = pytest.mark.unit


def sample(payload=None, request=None, steps=()):
    return Sample(exp_id="e", sample_id="s", position=0, group="g", stage="judged", payload=payload or {},
                  request=request, response=None, correct=True, verdict={}, error=None, trajectory=list(steps))


def step(text="", calls=(), results=()):
    return {"messages": [], "text": text, "tool_calls": list(calls), "tool_results": list(results)}


def scan(item, material) -> list[tuple[str, str, int | None]]:
    return [(f["severity"], f["message"], f["step"]) for f in answer_in_context(item, ScanContext("toy", material=material))]


def declares(*parts, target="Marseille"):
    return lambda item: Material(target, parts)


def test_each_kind_of_part_at_its_severity_the_most_severe_first():
    item = sample()
    task = Part(MATERIAL, "the attached file", "Paris 2.1M, Marseille 0.9M")
    judge = Part(JUDGE, "the judge's prompt", "Reference answer: Marseille")
    page = Part(SUSPECT, "the web_fetch tool's result", "Marseille", 2, "it names the answer sheet")
    assert scan(item, declares(task, judge)) == []
    assert scan(item, declares(task, page)) == [
        ("warning", "the web_fetch tool's result held the gold answer 'Marseille' before the model answered: "
                    "it names the answer sheet", 2)]
    notes = Part(GUARDED, "the instructions", "say Marseille", reason="they are the same for every task")
    assert scan(item, declares(page, notes)) == [
        ("invalid", "the instructions holds the gold answer 'Marseille': they are the same for every task", 0)]
    question = Part(QUESTION, "the question", "Is it Marseille?")
    assert scan(item, declares(page, notes, question)) == [
        ("invalid", "the question already holds the gold answer 'Marseille'", 0)]
    assert scan(item, declares(question, target=None)) == []  # no gold answer to look for (a judge's run)
    assert scan(item, declares(Part(QUESTION, "the question", "The answer is 3."), target="3"))[0][0] == "invalid"
    assert scan(item, declares(Part(QUESTION, "the question", "3 cats and 5 dogs"), target="3")) == []
    with pytest.raises(ValueError, match="not 'prompt'"):
        Part("prompt", "the prompt", "")
    with pytest.raises(TypeError, match="not a Material"):
        scan(item, lambda _: {"target": "Marseille"})


def test_without_a_declaration_the_whole_prompt_is_the_question():
    prompt = {"messages": [{"role": "user", "content": "Which city? Attached: Paris, Marseille"}]}
    leaked = sample({"target": "Marseille"}, prompt, [step("Marseille")])
    assert scan(leaked, None) == [("invalid", "the prompt already holds the gold answer 'Marseille'", 0)]
    assert spec_of("no-such-benchmark") is None and spec_of("gaia").material is GAIA.material


GAIA_ID = "c61d22de-5f6c-4958-a7f6-5e9707bd3466"


def gaia_sample(request, *steps, **payload):
    return sample({"task_id": GAIA_ID, "question": "Which city has the largest population?",
                   "final_answer": "Marseille", "file_name": f"{GAIA_ID}.json", **payload}, request, steps)


def test_gaia_a_program_that_opens_the_attachment_is_the_task_and_a_lookup_is_suspect():
    prompt = {"messages": [{"role": "system", "content": "You are a general AI assistant."},
                           {"role": "user", "content": f"Which city has the largest population?\n\nAttached file: {GAIA_ID}.json"}]}
    opened = step("", [{"name": "python", "arguments": f'{{"code": "print(open(\\"{GAIA_ID}.json\\").read())"}}'}],
                  [{"name": "python", "content": f"{GAIA_ID}.json: Paris 2.1M, Marseille 3M", "error": None}])
    assert scan(gaia_sample(prompt, opened, step("FINAL ANSWER: Marseille")), GAIA.material) == []
    looked_up = step("", [{"name": "web_search", "arguments": f'{{"query": "{GAIA_ID}"}}'}],
                     [{"name": "web_search", "content": "a leaderboard submission: Marseille", "error": None}])
    [(severity, message, where)] = scan(gaia_sample(prompt, opened, looked_up, step("FINAL ANSWER: Marseille")),
                                        GAIA.material)
    assert severity == "warning" and where == 1 and message.startswith("the web_search tool's result held")
    # A result of the last step was never read before the answer.
    assert scan(gaia_sample(prompt, looked_up), GAIA.material) == []
    # GAIA's instructions must not hold it: a system prompt that does is invalid.
    told = {"messages": [{"role": "system", "content": "Hint: Marseille."}, prompt["messages"][1]]}
    assert [f[0] for f in scan(gaia_sample(told, step("FINAL ANSWER: Marseille")), GAIA.material)] == ["invalid"]


def test_gaia_a_user_agents_record_is_guarded_but_its_attachment_is_not():
    record = {"task_id": GAIA_ID, "question": "Which city has the largest population?", "file_name": f"{GAIA_ID}.json"}
    agent = {"agent": "MyAgent", "record": record}
    assert scan(gaia_sample(agent, step("Marseille")), GAIA.material) == []
    leaked = {"agent": "MyAgent", "record": {**record, "Notes": "the answer is Marseille"}}
    [(severity, message, _)] = scan(gaia_sample(leaked, step("Marseille")), GAIA.material)
    assert severity == "invalid" and message.startswith("the record's field 'Notes' holds the gold answer")
    hidden = gaia_sample(leaked, step("Marseille"), final_answer="?")  # the test split: no answer to leak
    assert scan(hidden, GAIA.material) == []


def test_aime_judges_are_never_read():
    prompt = {"messages": [{"role": "user", "content": "Problem: ...\nStated answer: 7"}]}
    judged = sample({"problem_id": "p", "answer": 7}, prompt, [step('{"correctness": {"score": 5}}')])
    assert scan(judged, None)[0][0] == "invalid"  # what the judge's prompt looked like as the model's question
    assert scan(judged, JUDGING.material) == []
    both = {"generated_first": prompt["messages"], "real_first": prompt["messages"]}
    assert all(p.kind == JUDGE for p in WINRATE_SPEC.material(sample({}, both)).parts)
