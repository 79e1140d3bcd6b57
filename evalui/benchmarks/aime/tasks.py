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
from evalui.engine.client import ChatReply, EndpointError
from evalui.engine.store import Sample
from evalui.scoring.metrics import JUDGE_DIMENSIONS, PASS_THRESHOLD

EXAMPLES_PER_PROBLEM = 3
PARSE_ATTEMPTS = 3


def _retrying(client, build_messages, parse, kind: str, **chat_options):
    """Ask until ``parse`` accepts the text; tokens and latency add up over the attempts."""
    note, rejected = "", []
    prompt_tokens = completion_tokens = 0
    latency = 0.0
    for attempt in range(1, PARSE_ATTEMPTS + 1):
        reply = client.chat(build_messages(note), **chat_options)
        prompt_tokens += reply.prompt_tokens
        completion_tokens += reply.completion_tokens
        latency += reply.latency_s
        try:
            value = parse(reply.text)
        except InvalidOutput as exc:
            note = str(exc)
            rejected.append(note)
            continue
        return value, rejected, ChatReply(text="", prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                                          latency_s=latency, attempts=attempt)
    raise EndpointError(kind, "; ".join(rejected), PARSE_ATTEMPTS)


def generation_specs(n: int, topics: list[str], pool: list[RealProblem], seed: int) -> list[tuple[str, str, dict]]:
    specs = []
    for index in range(n):
        rng = random.Random(f"{seed}-{index}")
        topic = topics[index % len(topics)]
        examples = rng.sample(pool, min(EXAMPLES_PER_PROBLEM, len(pool)))
        specs.append((f"gen-{index + 1:04d}", topic, {
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

    def call(self, client, sample: Sample, request: dict) -> ChatReply:
        topic, examples = sample.payload["topic"], sample.payload["examples"]
        problem, rejected, reply = _retrying(
            client, lambda note: generation_messages(topic, examples, note),
            lambda text: self._accept(sample.sample_id, text), "invalid_generation")
        reply_text = json.dumps({"problem": problem, "rejected": rejected}, ensure_ascii=False)
        return ChatReply(reply_text, [], reply.prompt_tokens, reply.completion_tokens, reply.latency_s, reply.attempts)

    def judge(self, sample: Sample, response: dict):
        content = json.loads(response["text"])
        problem = {"problem_id": sample.sample_id, **content["problem"]}
        return problem, True, {"valid": True, "rejected_attempts": content["rejected"]}


def judge_specs(problems: list[dict]) -> list[tuple[str, str, dict]]:
    return [(p["problem_id"], p.get("topic") or "unspecified", p) for p in problems]


@dataclass
class JudgeTask:
    benchmark: str = "aime-judge"
    verdict_words: tuple[str, str] = ("pass", "fail")

    def build_request(self, sample: Sample) -> dict:
        return {"messages": judge_messages(sample.payload)}

    def call(self, client, sample: Sample, request: dict) -> ChatReply:
        scores, rejected, reply = _retrying(client, lambda note: judge_messages(sample.payload, note),
                                            parse_judgement, "judge_parse_failure")
        return ChatReply(json.dumps({"scores": scores, "rejected": rejected}, ensure_ascii=False), [],
                         reply.prompt_tokens, reply.completion_tokens, reply.latency_s, reply.attempts)

    def judge(self, sample: Sample, response: dict):
        content = json.loads(response["text"])
        scores = content["scores"]
        total = sum(scores[d]["score"] for d in JUDGE_DIMENSIONS) / len(JUDGE_DIMENSIONS)
        return ({"problem_id": sample.sample_id, "scores": scores, "total": total}, total >= PASS_THRESHOLD,
                {"total": total, "rejected_attempts": content["rejected"]})


def pairing_specs(generated: list[dict], real: list[RealProblem], seed: int) -> list[tuple[str, str, dict]]:
    """Each generated problem against a real one, in a seeded order that cycles through the real set."""
    order = list(range(len(real)))
    random.Random(seed).shuffle(order)
    specs = []
    for index, problem in enumerate(generated):
        partner = real[order[index % len(order)]]
        specs.append((f"pair-{problem['problem_id']}", problem.get("topic") or "unspecified", {
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

    def call(self, client, sample: Sample, request: dict) -> ChatReply:
        generated, real = sample.payload["generated"], sample.payload["real"]
        verdict_a, _, reply_a = _retrying(client, lambda note: comparison_messages(generated, real, note),
                                          parse_preference, "comparison_parse_failure")
        verdict_b, _, reply_b = _retrying(client, lambda note: comparison_messages(real, generated, note),
                                          parse_preference, "comparison_parse_failure")
        return ChatReply(json.dumps({"generated_first": verdict_a, "real_first": verdict_b}), [],
                         reply_a.prompt_tokens + reply_b.prompt_tokens,
                         reply_a.completion_tokens + reply_b.completion_tokens,
                         reply_a.latency_s + reply_b.latency_s, reply_a.attempts + reply_b.attempts)

    def judge(self, sample: Sample, response: dict):
        orders = json.loads(response["text"])
        outcome, consistent = combine_orders(orders["generated_first"], orders["real_first"])
        result = {"pair_id": sample.sample_id, "generated_id": sample.payload["generated"]["id"],
                  "real_id": sample.payload["real"]["id"], "outcome": outcome, "consistent": consistent, **orders}
        return result, outcome == "win", {"outcome": outcome, "consistent": consistent}
