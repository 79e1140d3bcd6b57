"""One answer's keeping and judging, as a job for the judges' child process (evalui.run.judge_pool).

The child packs the answer for the store (evalui.store.prepared) and judges it with the task's own
pure judge; the run's event loop then only hands both to the store's writer. A judge that raises
does not lose the answer: it is kept, and the sample fails with the judge's error, as on the loop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from evalui.run.judge_pool import JudgeJob
from evalui.store.prepared import PreparedAnswer, PreparedVerdict, prepare_answer, prepare_verdict


@dataclass(frozen=True, slots=True)
class AnswerJobResult:
    answer: PreparedAnswer
    verdict: PreparedVerdict | None  # None when the judge raised
    error: str  # the judge's failure, "Type: message"; empty when it judged
    judge_s: float


def keep_and_judge(judge: JudgeJob, response: object, trajectory: list, messages: list | None) -> AnswerJobResult:
    answer = prepare_answer(response, trajectory, messages)
    function, args = judge
    began = time.perf_counter()
    try:
        prediction, correct, verdict = function(*args)
    except Exception as exc:  # the sample's own failure, reported with it
        return AnswerJobResult(answer, None, f"{type(exc).__name__}: {exc}", time.perf_counter() - began)
    judge_s = time.perf_counter() - began
    return AnswerJobResult(answer, prepare_verdict(prediction, bool(correct), verdict), "", judge_s)
