"""The AIME LLM judge as named scorers: a judge run's stored replies judged again, with no model
call, at the pass mark (nothing changes) and at the excellence bar (the middling problems fail),
each score naming its scorer and keeping the mean and the four dimension scores."""

from __future__ import annotations

import json

import pytest
from peers import settings_for

from evalui.benchmarks.aime.options import JudgeOptions
from evalui.benchmarks.aime.spec import JUDGING
from evalui.ops.rescore import rescore
from evalui.run import lifecycle
from evalui.run.experiment import run_folder
from support.openai_peer import ScriptedPeer, completion
from support.tripwires import no_task_built

DIMENSIONS = ("correctness", "clarity", "difficulty_match", "completeness")
# The judge's mean for each problem: excellent, good enough to pass, and failing.
MEANS = {"Apples": 5, "Marbles": 4, "Spiders": 2}


def judge_script(body, n):
    text = body["messages"][-1]["content"]
    score = next(value for word, value in MEANS.items() if word in text)
    return completion(json.dumps({d: {"score": score, "comment": f"{d} looked at"} for d in DIMENSIONS}))


@pytest.fixture()
def judged(store, tmp_path):
    problems = [{"problem_id": word.lower(), "problem": f"{word} are counted. Find the count modulo 1000.",
                 "answer": 7, "solution": "Count.", "topic": "combinatorics"} for word in MEANS]
    generated = tmp_path / "aime_generated_scorers.json"
    generated.write_text(json.dumps(problems))
    with ScriptedPeer(judge_script) as peer:
        settings = settings_for(peer, max_retries=0)
        lifecycle.prepare(store, JUDGING, JudgeOptions(input=str(generated)), settings, exp_id="judged")
        summary = lifecycle.execute(store, "judged", settings, concurrency=2)
        asked = len(peer.chat_requests())
        yield store, summary, peer, asked


def records(summary: dict) -> dict:
    # The AIME steps write their own files beside the generated one; samples.jsonl is in the run's folder.
    with open(run_folder(summary["exp_id"], None) / "samples.jsonl", encoding="utf-8") as handle:
        return {r["id"]: r for r in map(json.loads, handle)}


def test_the_judge_scorer_keeps_the_mean_and_the_dimensions(judged):
    store, summary, _, _ = judged
    assert summary["judged"] == 3 and summary["correct"] == 2
    first = records(summary)
    assert first["marbles"]["score"]["value"] == "C"
    assert first["marbles"]["score"]["metadata"] == {"mean": 4.0, "pass_mark": 3.5,
                                                      "dimensions": dict.fromkeys(DIMENSIONS, 4.0)}
    assert first["spiders"]["score"]["value"] == "I"
    assert "mean 2.00 is below the pass mark 3.5" in first["spiders"]["score"]["explanation"]


def test_rescoring_at_the_pass_mark_changes_nothing_and_asks_nothing(judged):
    store, summary, peer, asked = judged
    with no_task_built(JUDGING):  # the scorer judges the stored replies alone
        result = rescore(store, "judged", "aime_llm_judge")
    assert len(peer.chat_requests()) == asked
    assert result["changed"] == 0 and result["rescored"] == 3
    assert {r["score"]["scorer"] for r in records(summary).values()} == {"aime_llm_judge"}


def test_rescoring_at_the_excellence_bar_fails_the_middling_problem(judged):
    store, summary, peer, asked = judged
    with no_task_built(JUDGING):
        result = rescore(store, "judged", "aime_llm_judge_excellent")
    assert len(peer.chat_requests()) == asked
    assert [(f["id"], f["before"], f["after"]) for f in result["flipped"]] == [("marbles", True, False)]
    after = records(summary)
    assert after["marbles"]["score"]["metadata"]["pass_mark"] == 4.5
    assert after["apples"]["score"]["value"] == "C" and after["apples"]["score"]["scorer"] == "aime_llm_judge_excellent"
    stored = {s.sample_id: s.correct for s in store.samples("judged")}
    assert stored == {"apples": True, "marbles": False, "spiders": False}


def test_the_judges_reference_answer_is_no_leak(judged):
    # Every judge prompt holds its problem's stated answer ("Stated answer: 7"): judging against it is the task.
    store, summary, peer, _ = judged
    assert all("Stated answer: 7" in r.body["messages"][-1]["content"] for r in peer.chat_requests())
    validity = summary["validity"]
    assert validity["by_scanner"]["answer_in_context"] == {}
    assert validity["invalid"] == 0 and validity["valid"] == 3 and validity["valid_accuracy"] == 2 / 3
    assert not any(f["scanner"] == "answer_in_context" for r in records(summary).values() for f in r["findings"])
