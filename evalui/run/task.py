"""The shape of a benchmark's task as the runner calls it (evalui.run.runner, evalui.run.sample_run).

Every task builds a request, calls the model and judges the answer (``Task``). The rest is optional,
and the runner asks a task whether it has it before using it:

- ``acall``: the same call written with ``await client.achat(...)``. A task that has it runs on the
  client's event loop, with no thread per request in flight; its build_request and judge then run
  on that loop too, so they must not block on the model (chat() raises there).
- ``ajudge``: ``judge`` for the loop, for a task whose judge may take long (it executes calls).
- ``prepare``: called once with the samples about to run, before any request: work that every
  request would otherwise repeat on the hot path (shared docs, tools).
- ``fixed_request(sample)``: True when the sample's request is known before its call and the call
  does not change it (one call, no conversation built as it goes). The runner then builds those
  requests, and packs them for the store, while the run loads: against a fast endpoint that work
  would otherwise sit on the event loop between two requests (bench/engine_budget.py).
- ``judge_job(sample, response)``: the sample's judge as a module-level function and its picklable
  arguments, or None. A pure judge said so may run in a child process (evalui.run.judge_pool)
  instead of on the event loop; it must give what ``judge`` gives.

The client is the run's model client (evalui.endpoint.client.ModelClient, or a stand-in with the
methods the task calls): the runner only hands it on.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeGuard

from evalui.endpoint.client import ChatReply
from evalui.run.judge_pool import JudgeJob
from evalui.run.trajectory import TaskResult
from evalui.store.run_store import Sample

# A judge's answer: (prediction, correct, verdict). ``correct`` is read as a truth value.
Judgement = tuple[object, bool, dict]
# What a call returns: a TaskResult, or the reply itself for a task that makes one call.
CallResult = TaskResult | ChatReply


class Task(Protocol):
    @property
    def benchmark(self) -> str: ...

    def build_request(self, sample: Sample) -> dict: ...

    def call(self, client: Any, sample: Sample, request: dict) -> CallResult: ...

    def judge(self, sample: Sample, response: dict) -> Judgement: ...


class AsyncTask(Task, Protocol):
    async def acall(self, client: Any, sample: Sample, request: dict) -> CallResult: ...


class AsyncJudge(Protocol):
    async def ajudge(self, sample: Sample, response: dict) -> Judgement: ...


class Preparing(Protocol):
    def prepare(self, samples: list[Sample]) -> None: ...


class FixedRequests(Task, Protocol):
    def fixed_request(self, sample: Sample) -> bool: ...


class JudgeJobs(Task, Protocol):
    def judge_job(self, sample: Sample, response: dict) -> JudgeJob | None: ...


def has_acall(task: Task) -> TypeGuard[AsyncTask]:
    return callable(getattr(task, "acall", None))


def has_ajudge(task: Task) -> TypeGuard[AsyncJudge]:
    return getattr(task, "ajudge", None) is not None


def has_prepare(task: Task) -> TypeGuard[Preparing]:
    return callable(getattr(task, "prepare", None))


def has_fixed_requests(task: Task) -> TypeGuard[FixedRequests]:
    return callable(getattr(task, "fixed_request", None))


def has_judge_jobs(task: Task) -> TypeGuard[JudgeJobs]:
    return callable(getattr(task, "judge_job", None))
