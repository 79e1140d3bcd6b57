"""One run's samples, executed: build, call, judge, store, count; on threads or on the client's loop.

``work`` is a sample on a worker thread, since a task's ``call`` is synchronous (an agent may make
several model calls in it); ``awork`` is a sample of a task that also has ``async def acall``, as a
coroutine on the client's own event loop, so that no thread waits per request and no reply crosses
threads (at thousands of samples a second those hand-offs cost as much as the HTTP itself; see
bench/engine_ceiling.py). evalui.run.drivers runs the workers.

Writes go to the store without waiting; the callbacks that count a sample run on the store's
writer thread once its verdict is committed, so a sample reported finished survives ``kill -9``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, TypedDict, cast

from evalui.endpoint.circuit import EndpointCircuit
from evalui.endpoint.client import Cancelled, ChatReply, EndpointError
from evalui.endpoint.in_flight import LiveRun, describe
from evalui.endpoint.limiter import Lease
from evalui.run.answer_batch import AnswerBatch, with_pure_judge
from evalui.run.answer_job import AnswerJobResult, keep_and_judge
from evalui.run.judge_pool import JudgePool, Outcome, cpus
from evalui.run.phases import RunPhases
from evalui.run.task import CallResult, Task, has_acall, has_ajudge, has_fixed_requests, has_judge_jobs
from evalui.run.trajectory import TaskResult, single_reply, stored_steps
from evalui.settings import read
from evalui.store.parts import Packed, pack_ahead
from evalui.store.prepared import PreparedAnswer, PreparedVerdict, prepare_verdict
from evalui.store.run_store import RunStore, Sample

TICK_S = 0.5  # how often the waiting thread looks at the run: pauses, and the requests in flight
HEARTBEAT_S = 10.0  # the log names the requests in flight when it has said nothing for this long
# Requests built ahead (SampleRun.build_ahead) at most: a few kB each, held until their sample runs.
AHEAD_MAX = 20_000
# When EVALUI_JUDGE_PROCESS=auto judges in a child process: a run with this many samples built ahead
# (below it, forking costs more than judging on the loop saves), on this many CPUs. On two, the
# child's CPU comes out of the endpoint's and the writer's core: the loop's CPU per sample fell by a
# fifth, the process's rose by a fifth, and the run phase did not move (bench/RESULTS.md, "judge
# off the loop").
JUDGE_PROCESS_MIN = 256
JUDGE_PROCESS_MIN_CPUS = 4


class Counts(TypedDict):
    """A run's counts as the store keeps them (RunStore.progress), kept up to date by the callbacks."""

    total: int
    judged: int
    correct: int
    errors: int  # samples not judged whose last try failed
    tokens: int


def counts_of(progress: dict) -> Counts:
    """RunStore.progress's counts, typed."""
    return Counts(total=progress["total"], judged=progress["judged"], correct=progress["correct"],
                  errors=progress["errors"], tokens=progress["tokens"])


def redact(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text


class SampleRun:
    """What every worker of one run shares: the task, the store, the counts and the progress."""

    def __init__(self, store: RunStore, exp_id: str, task: Task, client: Any, lease: Lease, cancel: threading.Event,
                 counts: Counts, progress: Callable[[str, int], object], secrets: tuple[str, ...], live: LiveRun,
                 phases: RunPhases | None = None):
        self.store, self.exp_id, self.task, self.client, self.lease = store, exp_id, task, client, lease
        self.phases = phases or RunPhases()
        self.cancel, self.counts, self._say, self.secrets, self.live = cancel, counts, progress, secrets, live
        self._said_at = time.monotonic()
        self._paused = ""  # what the log last said of a pause
        # What a success is called differs by task: a valid problem, a passing judgement, a win.
        self.words: tuple[str, str] = getattr(task, "verdict_words", ("correct", "wrong"))
        self.lock = threading.Lock()
        self.done_here = 0
        self.failures: list[BaseException] = []  # store writes that failed, and worker crashes
        self._ahead: dict[str, Packed] = {}  # sample id -> its request, built and packed while the run loaded
        self._finishing: set[asyncio.Future[None]] = set()  # answers kept and judged after the next request
        self.judges: JudgePool | None = None  # the child process that judges, when one runs (start_judges)
        self.batch = AnswerBatch(self)  # answers judged and kept together, on the loop's runs

    def build_ahead(self, samples: Iterable[Sample]) -> None:
        """Build and pack now the requests the task says are fixed (``fixed_request``), so that the
        event loop only sends them. A sample whose build fails is left to build on its turn, where
        its error is reported."""
        task = self.task
        if not has_fixed_requests(task):
            return
        for sample in samples:
            if len(self._ahead) >= AHEAD_MAX:
                return
            try:
                if sample.stage == "init" and task.fixed_request(sample):
                    self._ahead[sample.sample_id] = pack_ahead(task.build_request(sample))
            except Exception:  # bad data: reported by the sample's own build, in its turn
                continue

    def start_judges(self) -> None:
        """Fork the child that judges the samples built ahead (evalui.run.judge_pool), when the task's
        judge is pure and EVALUI_JUDGE_PROCESS says so; call after ``build_ahead``, on the loop's runs."""
        setting = read("judge_process")
        if setting == "off" or not self._ahead or not has_judge_jobs(self.task):
            return
        if setting == "on" or (len(self._ahead) >= JUDGE_PROCESS_MIN and cpus() >= JUDGE_PROCESS_MIN_CPUS):
            self.judges = JudgePool.start()

    def close_judges(self) -> None:
        judges, self.judges = self.judges, None
        if judges is not None:
            judges.close()

    def _request(self, sample: Sample) -> tuple[dict, Packed | None]:
        """The sample's request, and its packed form when it was built ahead."""
        ahead = self._ahead.pop(sample.sample_id, None)
        if ahead is not None:
            return cast(dict, ahead.value), ahead
        return self.task.build_request(sample), None

    def _progress(self, message: str, done_here: int) -> None:
        self._said_at = time.monotonic()
        self._say(message, done_here)

    def tick(self) -> None:
        """Called every TICK_S by the thread that waits for the workers: a pause or a resume is
        said at once, and a run that goes quiet names its requests in flight every HEARTBEAT_S."""
        paused = self.live.paused()
        if paused != self._paused:
            host = getattr(getattr(self.live.circuit, "breaker", None), "host", "?")
            self._paused = paused
            with self.lock:
                self._progress(paused or f"resumed: the endpoint at {host} answers again", self.done_here)
        elif time.monotonic() - self._said_at >= HEARTBEAT_S and len(self.live.board):
            with self.lock:
                self._progress(describe(self.live.requests()), self.done_here)

    def _outage(self, exc: EndpointError) -> bool:
        """A failure the endpoint's outage caused: the sample waits for it instead of failing."""
        circuit = self.live.circuit  # the client's, when it has one (runner.run_experiment)
        return (exc.unreachable and isinstance(circuit, EndpointCircuit) and circuit.breaker.is_open
                and not self.cancel.is_set())

    # callbacks: on the store's writer thread, once the write is committed ------------------
    def _judged(self, sample_id: str, correct: bool, tokens: int, had_error: bool, error: BaseException | None) -> None:
        with self.lock:
            if error is not None:
                self.failures.append(error)
                self._progress(f"{sample_id}: not stored: {error}", self.done_here)
                return
            self.done_here += 1
            counts = self.counts
            counts["judged"] += 1
            counts["correct"] += correct
            counts["errors"] -= 1 if had_error else 0
            counts["tokens"] += tokens
            self._progress(f"{sample_id}: {self.words[0] if correct else self.words[1]}", self.done_here)

    def _errored(self, sample_id: str, message: str, had_error: bool, error: BaseException | None) -> None:
        with self.lock:
            if error is not None:
                self.failures.append(error)
            self.counts["errors"] += 0 if had_error or error is not None else 1
            self._progress(f"{sample_id}: {message}", self.done_here)

    # the steps of a sample ---------------------------------------------------------------------
    def judge(self, sample: Sample, response: dict, tokens: int, had_error: bool, after: int | None = None) -> None:
        began = time.perf_counter()
        prediction, correct, verdict = self.task.judge(sample, response)
        self.phases.add_judge(time.perf_counter() - began)
        self._record_verdict(sample, prediction, bool(correct), verdict, tokens, had_error, after)

    def _record_verdict(self, sample: Sample, prediction: object, correct: bool, verdict: dict, tokens: int,
                        had_error: bool, after: int | None) -> None:
        began = time.perf_counter()
        prepared = prepare_verdict(prediction, correct, verdict)
        self.phases.add_store(time.perf_counter() - began)
        self._store_verdict(sample, prepared, tokens, had_error, after)

    def _store_verdict(self, sample: Sample, verdict: PreparedVerdict, tokens: int, had_error: bool,
                       after: int | None) -> None:
        began = time.perf_counter()
        correct = verdict.correct
        self.store.record_prepared_judgement(
            self.exp_id, sample.sample_id, verdict, wait=False,
            on_done=lambda error: self._judged(sample.sample_id, correct, tokens, had_error, error), after=after)
        self.phases.add_store(time.perf_counter() - began)

    def fail(self, sample: Sample, request: dict | None, error: str, attempts: int, had_error: bool,
             steps: list | None = None, plain: str | None = None) -> None:
        """Store the error (its full text); the log and the status get ``plain``, one sentence."""
        message = redact(error, self.secrets)
        said = redact(plain, self.secrets) + f" (after {attempts} tr{'ies' if attempts != 1 else 'y'})" if plain else message
        self.live.last_error = f"{sample.sample_id}: {said}"
        began = time.perf_counter()
        self.store.record_error(
            self.exp_id, sample.sample_id, request=request, error=message, attempts=attempts,
            trajectory=stored_steps(steps) if steps else None, wait=False,
            on_done=lambda failure: self._errored(sample.sample_id, said, had_error, failure))
        self.phases.add_store(time.perf_counter() - began)

    def _keep_answer(self, sample: Sample, request: dict, result: CallResult, packed: Packed | None = None,
                     prepared: PreparedAnswer | None = None) -> tuple[TaskResult, int]:
        """``prepared``: the answer packed already (by the judges' child, evalui.run.answer_job)."""
        if isinstance(result, ChatReply):  # a task that makes one call may return its reply
            result = single_reply(result, (request or {}).get("messages"))
        # Not waited for: the answer is kept as soon as its group commits (a slow judge cannot lose
        # it), and the verdict, folded into the same write if that is still queued, is what marks
        # the sample finished.
        began = time.perf_counter()
        ticket = self.store.record_rollout(self.exp_id, sample.sample_id, request=packed if packed is not None else request,
                                           response=prepared.response if prepared else result.output,
                                           latency_s=result.wall_s, prompt_tokens=result.prompt_tokens,
                                           completion_tokens=result.completion_tokens, attempts=result.attempts,
                                           trajectory=prepared.trajectory if prepared else stored_steps(result.steps),
                                           search_text=prepared.search_text if prepared else None, wait=False)
        self.phases.add_store(time.perf_counter() - began)
        return result, ticket

    def answered(self, sample: Sample, request: dict, result: CallResult, had_error: bool,
                 packed: Packed | None = None) -> None:
        result, ticket = self._keep_answer(sample, request, result, packed)
        self.judge(sample, result.output, result.total_tokens, had_error, after=ticket)

    async def ajudge(self, sample: Sample, response: dict, tokens: int, had_error: bool,
                     after: int | None = None) -> None:
        """``judge`` for the loop: a task whose judge may take long (it executes calls) gives ``ajudge``."""
        task = self.task
        if not has_ajudge(task):
            self.judge(sample, response, tokens, had_error, after)
            return
        began = time.perf_counter()
        prediction, correct, verdict = await task.ajudge(sample, response)
        self.phases.add_judge(time.perf_counter() - began)
        self._record_verdict(sample, prediction, bool(correct), verdict, tokens, had_error, after)

    def work(self, sample: Sample) -> None:
        had_error = sample.error is not None
        request: dict | None = None
        try:
            if sample.stage == "rollout":  # answered before a crash: judge it, never ask again
                self.judge(sample, _kept_answer(sample), 0, had_error)
                return
            request, packed = self._request(sample)
            if not self.lease.acquire(self.cancel):
                return
            self.phases.mark_first_request()
            try:
                while True:
                    try:
                        with self.live.board.track(sample.sample_id):
                            result = self.task.call(self.client, sample, request)
                        break
                    except EndpointError as exc:
                        if not self._outage(exc):
                            raise
                        # The endpoint went away during this sample's call: it asks again once the
                        # endpoint answers (the client waits for that), never counted as an error.
            except Cancelled:
                return  # not the sample's fault: it waits for a resume, as it was
            except EndpointError as exc:
                self.fail(sample, request, str(exc), exc.attempts, had_error, getattr(exc, "steps", None), exc.plain)
                return
            finally:
                self.lease.release()
            self.answered(sample, request, result, had_error, packed)
        except Exception as exc:  # one sample's bad data or a task bug must not stop the run
            self.fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)

    async def awork(self, sample: Sample) -> None:
        """``work`` for a task with ``acall``, on the client's loop. A cancel cancels the coroutine
        (CancelledError is not an Exception): the sample then waits for a resume, as it was."""
        had_error = sample.error is not None
        request: dict | None = None
        try:
            if sample.stage == "rollout":
                await self.ajudge(sample, _kept_answer(sample), 0, had_error)
                return
            request, packed = self._request(sample)
            if not await self._acquire():
                return
            self.phases.mark_first_request()
            try:
                while True:
                    try:
                        with self.live.board.track(sample.sample_id):
                            result = await self._acall(sample, request)
                        break
                    except EndpointError as exc:
                        if not self._outage(exc):
                            raise
            except Cancelled:
                return
            except EndpointError as exc:
                self.fail(sample, request, str(exc), exc.attempts, had_error, getattr(exc, "steps", None), exc.plain)
                return
            finally:
                self.lease.release()
            if packed is None:
                await self._finish(sample, request, result, had_error, packed)
            elif self.judges is not None:
                self._judge_elsewhere(self.judges, sample, request, result, had_error, packed)
            elif not self.batch.add(sample, request, result, had_error, packed):
                # A request built ahead is one call's (fixed_request): its answer is kept and judged
                # once the replies that came back with it have sent their samples' next requests.
                # Inline, a wave of C replies waited for each other's keeping and judging, and the
                # endpoint's slots refilled one sample at a time (bench/RESULTS.md, "night"). A pure
                # judge's answers go together (evalui.run.answer_batch); the others in a task each.
                self._later(self._finish(sample, request, result, had_error, packed))
        except Exception as exc:
            self.fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)

    async def _finish(self, sample: Sample, request: dict, result: CallResult, had_error: bool,
                      packed: Packed | None) -> None:
        """Keep the answer and judge it; a task's error fails the sample alone."""
        try:
            kept, ticket = self._keep_answer(sample, request, result, packed)
        except Exception as exc:
            self.fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)
            return
        await self._judge_kept(sample, request, kept, had_error, ticket)

    async def _judge_kept(self, sample: Sample, request: dict, kept: TaskResult, had_error: bool, ticket: int) -> None:
        try:
            await self.ajudge(sample, kept.output, kept.total_tokens, had_error, after=ticket)
        except Exception as exc:
            self.fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)

    def _judge_elsewhere(self, judges: JudgePool, sample: Sample, request: dict, result: CallResult, had_error: bool,
                         packed: Packed) -> None:
        """Hand the answer's packing and judging to the child process (evalui.run.answer_job); the
        store gets both when they come back (``_kept_elsewhere``). A task with no job for this
        sample keeps and judges it here."""
        try:
            kept, job = with_pure_judge(self.task, sample, request, result)
        except Exception as exc:
            self.fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)
            return
        if job is None:
            self._later(self._finish(sample, request, kept, had_error, packed))
            return
        judges.submit((keep_and_judge, (job, kept.output, stored_steps(kept.steps), request.get("messages"))),
                      lambda outcome: self._kept_elsewhere(sample, request, kept, had_error, packed, outcome))

    def _kept_elsewhere(self, sample: Sample, request: dict, kept: TaskResult, had_error: bool, packed: Packed,
                        outcome: Outcome) -> None:
        done, value, _ = outcome
        if not done:  # the child could not pack this answer (it raised there): kept and judged here
            self._later(self._finish(sample, request, kept, had_error, packed))
            return
        made = cast(AnswerJobResult, value)
        self.phases.add_judge(made.judge_s)
        try:
            _, ticket = self._keep_answer(sample, request, kept, packed, made.answer)
            if made.verdict is None:  # the judge raised there: the same message as on the loop
                self.fail(sample, request, f"task_error: {made.error}", 0, had_error)
                return
            self._store_verdict(sample, made.verdict, kept.total_tokens, had_error, ticket)
        except Exception as exc:
            self.fail(sample, request, f"task_error: {type(exc).__name__}: {exc}", 0, had_error)

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        finishing = asyncio.ensure_future(work)
        self._finishing.add(finishing)
        finishing.add_done_callback(self._finishing.discard)

    async def drain(self) -> None:
        """Wait for the answers still being kept and judged, here and in the judges' child; a failure
        among them (the store's) is the run's, as a worker's crash is."""
        while True:
            self.batch.flush()  # not left for a later turn of the loop: the run ends after this
            judges = self.judges
            if judges is not None:
                await judges.drain()
                self.failures.extend(judges.failures)
                judges.failures.clear()
            if not self._finishing:
                return
            for outcome in await asyncio.gather(*self._finishing, return_exceptions=True):
                if isinstance(outcome, BaseException):
                    self.failures.append(outcome)

    def _acall(self, sample: Sample, request: dict) -> Awaitable[CallResult]:
        task = self.task
        if not has_acall(task):  # the runner runs a task on the loop only when it has acall
            raise AttributeError(f"{type(task).__name__!r} object has no attribute 'acall'")
        return task.acall(self.client, sample, request)

    async def _acquire(self) -> bool:
        delay = self.lease.try_acquire()
        if delay is None:  # the endpoint's slots are taken (by other runs): wait in a thread
            waiting = asyncio.ensure_future(asyncio.to_thread(self.lease.acquire, self.cancel))
            try:
                return await asyncio.shield(waiting)
            except asyncio.CancelledError:
                # The slot may still be granted after we stopped waiting: give it back then.
                waiting.add_done_callback(self._release_if_granted)
                raise
        if delay > 0:
            try:
                await asyncio.sleep(delay)  # the RPM's spacing; the slot is held meanwhile
            except asyncio.CancelledError:
                self.lease.release()
                raise
        return True

    def _release_if_granted(self, waited: asyncio.Future[bool]) -> None:
        if waited.result():
            self.lease.release()


def _kept_answer(sample: Sample) -> dict:
    """The answer of a sample at stage rollout: its call's output, as record_rollout stored it."""
    return cast(dict, sample.response)
