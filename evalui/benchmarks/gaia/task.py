"""The GAIA task for the run engine: official prompt, the model or the user's agent, core scoring."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.prompt import build_messages
from evalui.benchmarks.gaia.scoring import extract_final_answer, lenient_match, question_scorer
from evalui.core.benchmark import SampleSpec
from evalui.endpoint.client import ChatReply, EndpointError
from evalui.run.trajectory import Recorder, TaskResult, reply_output, single_reply
from evalui.store.run_store import Sample

BENCHMARK = "gaia"


def question_payload(question: GaiaQuestion) -> dict:
    return {"task_id": question.task_id, "question": question.question, "final_answer": question.final_answer,
            "level": question.level, "file_name": question.file_name, "file_path": question.file_path,
            "steps": question.steps, "extra": question.extra}


def question_from_payload(payload: dict) -> GaiaQuestion:
    return GaiaQuestion(payload["task_id"], payload["question"], payload.get("final_answer"), payload.get("level"),
                        payload.get("file_name") or "", payload.get("file_path"), payload.get("steps"),
                        payload.get("extra") or {})


def sample_specs(questions: list[GaiaQuestion]) -> list[SampleSpec]:
    return [SampleSpec(q.task_id, f"Level {q.level}" if q.level else "Level ?", question_payload(q)) for q in questions]


def judge_answer(question: GaiaQuestion, response_text: str) -> tuple[object, bool, dict]:
    answer = extract_final_answer(response_text)
    if not question.has_truth:
        return answer, False, {"scored": False, "model_answer": answer, "lenient": None}
    exact = question_scorer(answer, question.final_answer)
    return answer, exact, {"scored": True, "model_answer": answer, "exact": exact,
                           "lenient": lenient_match(answer, question.final_answer),
                           "error_type": None if exact else "wrong_answer"}


def _has_image(messages: list[dict]) -> bool:
    return any(isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
               for m in messages)


@dataclass
class GaiaTask:
    agent: object | None = None
    images: bool = True
    benchmark: str = field(default=BENCHMARK)

    def build_request(self, sample: Sample) -> dict:
        question = question_from_payload(sample.payload)
        if self.agent is not None:
            return {"agent": type(self.agent).__name__, "record": question.record()}
        return {"messages": build_messages(question, images=self.images)}

    def call(self, client, sample: Sample, request: dict) -> TaskResult:
        if self.agent is None:
            recorder = Recorder(client)
            try:
                reply = recorder.chat(request["messages"])
            except EndpointError as exc:
                # A text-only endpoint refuses image content with a 400: name the image instead.
                if exc.kind != "http_400" or not _has_image(request["messages"]):
                    raise
                reply = recorder.chat(build_messages(question_from_payload(sample.payload), images=False),
                                      new_conversation=True)
            return recorder.result(reply_output(reply))
        started = time.perf_counter()
        try:
            answer = self.agent.answer(request["record"])
        except Exception as exc:  # the agent's own failure is an error, never a wrong answer
            raise EndpointError("agent_error", f"{type(exc).__name__}: {exc}", 1) from exc
        # The agent's own steps are not visible to evalui: its answer is the one step.
        return single_reply(ChatReply(text="" if answer is None else str(answer),
                                      latency_s=time.perf_counter() - started), [])

    def judge(self, sample: Sample, response: dict) -> tuple[object, bool, dict]:
        return judge_answer(question_from_payload(sample.payload), response.get("text", ""))
