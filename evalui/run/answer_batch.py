"""Answers whose judge is pure, kept and judged together, once per turn of the event loop.

A sample whose request was built ahead is kept and judged after its worker has asked its next
sample (evalui.run.sample_run). One task of the loop per answer cost a task, its chain of
coroutines and two hand-overs to the store's writer (the answer, then its verdict folded into it);
against a fast endpoint the loop's time per sample is what limits the run. Here the answers that
came back in one turn of the loop wait in a list, and one callback judges them one after another
with the task's pure judge (``judge_job``, as the judging child does) and hands them to the store in
one go (``RunStore.record_judged_answers``): each sample is still a write of its own, counted once
it is committed. A task with no pure judge for a sample keeps the task per answer.
"""

from __future__ import annotations

import asyncio
import functools
import time
from typing import Protocol

from evalui.endpoint.client import ChatReply
from evalui.run.judge_pool import JudgeJob
from evalui.run.phases import RunPhases
from evalui.run.task import CallResult, Task, has_judge_jobs
from evalui.run.trajectory import TaskResult, single_reply, stored_steps
from evalui.store.answers import JudgedAnswer
from evalui.store.parts import Packed
from evalui.store.prepared import prepare_verdict
from evalui.store.run_store import RunStore, Sample

_Answer = tuple[Sample, dict, TaskResult, bool, Packed, JudgeJob]


class _Run(Protocol):
    """What the batch uses of its run (evalui.run.sample_run.SampleRun, which imports this module)."""

    task: Task
    store: RunStore
    exp_id: str
    phases: RunPhases
    failures: list[BaseException]  # the run's: a store that fails under it stops the run with its error

    def fail(self, sample: Sample, request: dict | None, error: str, attempts: int, had_error: bool) -> None: ...

    def _keep_answer(self, sample: Sample, request: dict, result: CallResult,
                     packed: Packed | None = None) -> tuple[TaskResult, int]: ...

    def _judged(self, sample_id: str, correct: bool, tokens: int, had_error: bool,
                error: BaseException | None) -> None: ...


def with_pure_judge(task: Task, sample: Sample, request: dict,
                    result: CallResult) -> tuple[TaskResult, JudgeJob | None]:
    """The answer as a task's result, and the task's pure judge of it (``judge_job``; None when the
    task has none for this sample). Raises what the task raises: that sample fails alone."""
    kept = single_reply(result, request.get("messages")) if isinstance(result, ChatReply) else result
    return kept, task.judge_job(sample, kept.output) if has_judge_jobs(task) else None


class AnswerBatch:
    """The answers of one run waiting to be judged and kept; used on the run's event loop only."""

    def __init__(self, run: _Run):
        self._run = run
        self._waiting: list[_Answer] = []
        self._scheduled: asyncio.Handle | None = None

    def add(self, sample: Sample, request: dict, result: CallResult, had_error: bool, packed: Packed) -> bool:
        """Take the answer to judge and keep with the others of this turn; False when the task has
        no pure judge for it (the caller keeps and judges it itself)."""
        run = self._run
        if not has_judge_jobs(run.task):
            return False
        try:
            kept, job = with_pure_judge(run.task, sample, request, result)
        except Exception as exc:  # the task's bug fails this sample alone, as its judge's would
            run.fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)
            return True
        if job is None:
            return False
        self._waiting.append((sample, request, kept, had_error, packed, job))
        if self._scheduled is None:
            self._scheduled = asyncio.get_running_loop().call_soon(self.flush)
        return True

    def flush(self) -> None:
        """Judge and keep every answer waiting (the scheduled callback, and the run's drain)."""
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None
        waiting, self._waiting = self._waiting, []
        if not waiting:
            return
        try:
            self._judge_and_keep(waiting)
        except Exception as exc:  # the store failed under the run (a callback's error would go unseen)
            self._run.failures.append(exc)

    def _judge_and_keep(self, waiting: list[_Answer]) -> None:
        run = self._run
        answers: list[JudgedAnswer] = []
        kept_for: list[tuple[Sample, dict, bool]] = []
        judging_s = 0.0
        for sample, request, kept, had_error, packed, (judge, arguments) in waiting:
            began = time.perf_counter()
            try:
                prediction, correct, verdict = judge(*arguments)
            except Exception as exc:
                judging_s += time.perf_counter() - began
                # As on the answer's own path: the answer is kept, then the sample fails with the error.
                run._keep_answer(sample, request, kept, packed)
                run.fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)
                continue
            judging_s += time.perf_counter() - began
            prepared = prepare_verdict(prediction, bool(correct), verdict)
            answers.append(JudgedAnswer(
                sample.sample_id, packed, kept.output, kept.wall_s, kept.prompt_tokens, kept.completion_tokens,
                kept.attempts, stored_steps(kept.steps), prepared,
                on_done=functools.partial(run._judged, sample.sample_id, prepared.correct, kept.total_tokens, had_error)))
            kept_for.append((sample, request, had_error))
        run.phases.add_judge(judging_s)
        began = time.perf_counter()
        try:
            run.store.record_judged_answers(run.exp_id, answers)
        except Exception as exc:  # the store refused them all (closed): each sample says so
            for sample, request, had_error in kept_for:
                run.fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)
        run.phases.add_store(time.perf_counter() - began)
