"""The three AIME tasks for the run engine: generate, judge, and compare blind in both orders.

Invalid output (unparseable, out-of-range answer, duplicate) is retried inside the call and,
if it stays invalid, recorded as an error: it is never stored as a problem or given a score.
"""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass, field

from evalui.benchmarks.aime.dedupe import find_duplicate
from evalui.benchmarks.aime.parse import InvalidOutput, parse_generated_problem, parse_judgement, parse_preference
from evalui.benchmarks.aime.prompts import comparison_messages, generation_messages, judge_messages
from evalui.benchmarks.aime.references import RealProblem
from evalui.core.benchmark import SampleSpec
from evalui.endpoint.client import EndpointError
from evalui.run.trajectory import Recorder, TaskResult
from evalui.stats.metrics import JUDGE_DIMENSIONS, PASS_THRESHOLD
from evalui.store.run_store import Sample

EXAMPLES_PER_PROBLEM = 3
PARSE_ATTEMPTS = 3


def _retrying(recorder: Recorder, build_messages, parse, kind: str, **chat_options):
    """Ask until ``parse`` accepts the text; every attempt is a step of the sample's trajectory.
    Returns (value, rejection reasons); raises EndpointError, carrying the steps, when none is accepted."""
    note, rejected = "", []
    for _ in range(PARSE_ATTEMPTS):
        reply = recorder.chat(build_messages(note), new_conversation=True, **chat_options)
        try:
            return parse(reply.text), rejected
        except InvalidOutput as exc:
            note = str(exc)
            rejected.append(note)
            recorder.reject_last(note)
    failure = EndpointError(kind, "; ".join(rejected), PARSE_ATTEMPTS)
    failure.steps = recorder.steps
    raise failure


def _structured(response: dict) -> dict:
    # A rollout stored before trajectories existed holds its content as JSON text.
    return json.loads(response["text"]) if set(response) == {"text", "tool_calls"} else response


def generation_specs(n: int, topics: list[str], pool: list[RealProblem], seed: int) -> list[SampleSpec]:
    specs = []
    for index in range(n):
        rng = random.Random(f"{seed}-{index}")
        topic = topics[index % len(topics)]
        examples = rng.sample(pool, min(EXAMPLES_PER_PROBLEM, len(pool)))
        specs.append(SampleSpec(f"gen-{index + 1:04d}", topic, {
            "topic": topic, "reference_ids": [e.problem_id for e in examples],
            "examples": [e.problem for e in examples]}))
    return specs


@dataclass
class GenerationTask:
    references: list[RealProblem]
    accepted: list[tuple[str, str]] = field(default_factory=list)  # (problem_id, text) kept so far
    benchmark: str = "aime-generate"
    verdict_words: tuple[str, str] = ("valid", "invalid")

    def __post_init__(self):
        self._lock = threading.Lock()
        self._reference_texts = [(r.problem_id, r.problem) for r in self.references]

    def build_request(self, sample: Sample) -> dict:
        return {"messages": generation_messages(sample.payload["topic"], sample.payload["examples"])}

    def _accept(self, sample_id: str, text: str) -> dict:
        problem = parse_generated_problem(text)
        duplicate = find_duplicate(problem["problem"], self._reference_texts)
        if duplicate:
            raise InvalidOutput(f"too close to the real problem {duplicate[0]} (similarity {duplicate[1]:.2f})")
        with self._lock:
            duplicate = find_duplicate(problem["problem"], self.accepted)
            if duplicate:
                raise InvalidOutput(f"duplicates the generated problem {duplicate[0]} (similarity {duplicate[1]:.2f})")
            self.accepted.append((sample_id, problem["problem"]))
        return problem

    def call(self, client, sample: Sample, request: dict) -> TaskResult:
        topic, examples = sample.payload["topic"], sample.payload["examples"]
        recorder = Recorder(client)
        problem, rejected = _retrying(recorder, lambda note: generation_messages(topic, examples, note),
                                      lambda text: self._accept(sample.sample_id, text), "invalid_generation")
        return recorder.result({"problem": problem, "rejected": rejected})

    def judge(self, sample: Sample, response: dict):
        return judge_generated(sample, response)


def judge_generated(sample: Sample, response: dict, options=None):
    """A stored generation is a valid problem: the checks ran while generating, so it passes."""
    content = _structured(response)
    problem = {"problem_id": sample.sample_id, **content["problem"]}
    return problem, True, {"valid": True, "rejected_attempts": content["rejected"]}


def judge_specs(problems: list[dict]) -> list[SampleSpec]:
    return [SampleSpec(p["problem_id"], p.get("topic") or "unspecified", p) for p in problems]


@dataclass
class JudgeTask:
    benchmark: str = "aime-judge"
    verdict_words: tuple[str, str] = ("pass", "fail")

    def build_request(self, sample: Sample) -> dict:
        return {"messages": judge_messages(sample.payload)}

    def call(self, client, sample: Sample, request: dict) -> TaskResult:
        recorder = Recorder(client)
        scores, rejected = _retrying(recorder, lambda note: judge_messages(sample.payload, note), parse_judgement,
                                     "judge_parse_failure")
        return recorder.result({"scores": scores, "rejected": rejected})

    def judge(self, sample: Sample, response: dict, pass_mark: float = PASS_THRESHOLD):
        return judge_scores(sample, response, pass_mark)


def judge_scores(sample: Sample, response: dict, pass_mark: float = PASS_THRESHOLD):
    """Pass when the mean of the judge's four stored scores reaches ``pass_mark``; the score's
    metadata keeps the mean and each dimension's score (more than the bool)."""
    content = _structured(response)
    scores = content["scores"]
    total = sum(scores[d]["score"] for d in JUDGE_DIMENSIONS) / len(JUDGE_DIMENSIONS)
    passed = total >= pass_mark
    verdict = {"total": total, "rejected_attempts": content["rejected"],
               "metadata": {"mean": total, "pass_mark": pass_mark,
                            "dimensions": {d: scores[d]["score"] for d in JUDGE_DIMENSIONS}}}
    if not passed:
        lowest = min(JUDGE_DIMENSIONS, key=lambda d: scores[d]["score"])
        verdict["reason"] = (f"mean {total:.2f} is below the pass mark {pass_mark}; lowest: {lowest} "
                             f"{scores[lowest]['score']:g}" + (f" ({scores[lowest]['comment']})"
                                                              if scores[lowest]["comment"] else ""))
    return {"problem_id": sample.sample_id, "scores": scores, "total": total}, passed, verdict


def pairing_specs(generated: list[dict], real: list[RealProblem], seed: int) -> list[SampleSpec]:
    """Each generated problem against a real one, in a seeded order that cycles through the real set."""
    order = list(range(len(real)))
    random.Random(seed).shuffle(order)
    specs = []
    for index, problem in enumerate(generated):
        partner = real[order[index % len(order)]]
        specs.append(SampleSpec(f"pair-{problem['problem_id']}", problem.get("topic") or "unspecified", {
            "generated": {"id": problem["problem_id"], "problem": problem["problem"], "answer": problem["answer"]},
            "real": {"id": partner.problem_id, "problem": partner.problem,
                     "answer": partner.answer if partner.answer is not None else "(not given)"}}))
    return specs


def combine_orders(generated_first: str, real_first: str) -> tuple[str, bool]:
    """(outcome, consistent). A pair is a win or a loss only when both orders agree."""
    first = {"1": "generated", "2": "real", "tie": "tie"}[generated_first]
    second = {"1": "real", "2": "generated", "tie": "tie"}[real_first]
    if first == second:
        return {"generated": "win", "real": "loss", "tie": "tie"}[first], True
    return "tie", False


@dataclass
class WinRateTask:
    benchmark: str = "aime-winrate"
    verdict_words: tuple[str, str] = ("win", "not a win")

    def build_request(self, sample: Sample) -> dict:
        payload = sample.payload
        return {"generated_first": comparison_messages(payload["generated"], payload["real"]),
                "real_first": comparison_messages(payload["real"], payload["generated"])}

    def call(self, client, sample: Sample, request: dict) -> TaskResult:
        generated, real = sample.payload["generated"], sample.payload["real"]
        recorder = Recorder(client)
        verdict_a, _ = _retrying(recorder, lambda note: comparison_messages(generated, real, note),
                                 parse_preference, "comparison_parse_failure")
        verdict_b, _ = _retrying(recorder, lambda note: comparison_messages(real, generated, note),
                                 parse_preference, "comparison_parse_failure")
        return recorder.result({"generated_first": verdict_a, "real_first": verdict_b})

    def judge(self, sample: Sample, response: dict):
        return judge_pair(sample, response)


def judge_pair(sample: Sample, response: dict, options=None):
    """The pair's outcome from the judge's two stored orders (order-dependent: a tie)."""
    orders = {key: _structured(response)[key] for key in ("generated_first", "real_first")}
    outcome, consistent = combine_orders(orders["generated_first"], orders["real_first"])
    result = {"pair_id": sample.sample_id, "generated_id": sample.payload["generated"]["id"],
              "real_id": sample.payload["real"]["id"], "outcome": outcome, "consistent": consistent, **orders}
    return result, outcome == "win", {"outcome": outcome, "consistent": consistent}
