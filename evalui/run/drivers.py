"""How a run's samples are scheduled: worker threads, or coroutines on the client's event loop.

Each worker takes the next sample and hands it to the run's ``SampleRun`` (evalui.run.sample_run),
which builds, calls, keeps and judges it. ``run_on_threads`` is the general way: one thread per
unit of concurrency, since a task's ``call`` is synchronous. ``run_on_loop`` is for a task with
``acall``: its samples run as coroutines on the client's own loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterable

from evalui.run.sample_run import TICK_S, SampleRun
from evalui.store.run_store import Sample

CANCEL_POLL_S = 0.1


def run_on_threads(run: SampleRun, pending: Iterable[Sample], workers: int) -> None:
    queue, taking = iter(pending), threading.Lock()

    def worker() -> None:
        try:
            while not run.cancel.is_set():
                with taking:
                    sample = next(queue, None)
                if sample is None:
                    return
                run.work(sample)
        except BaseException as exc:  # e.g. the store closed under the run: stop, and say so
            run.failures.append(exc)
            run.cancel.set()

    threads = [threading.Thread(target=worker, name=f"evalui-run-{run.exp_id}-{i}", daemon=True)
               for i in range(workers)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(TICK_S)
                run.tick()
    except BaseException:
        # Set first: queued samples are then never started, and requests in flight end within a
        # fraction of a second.
        run.cancel.set()
        for thread in threads:
            thread.join()
        raise


def run_on_loop(run: SampleRun, pending: Iterable[Sample], workers: int) -> None:
    future = run.client.submit(_all_samples(run, pending, workers))
    try:
        while True:
            try:
                future.result(timeout=TICK_S)
                return
            except TimeoutError:
                run.tick()
    except KeyboardInterrupt:
        run.cancel.set()  # the watcher cancels the samples in flight within CANCEL_POLL_S
        future.result()
        raise


async def _all_samples(run: SampleRun, pending: Iterable[Sample], workers: int) -> None:
    queue = iter(pending)
    # A RunWorker (evalui.run.claims.Claims) claims from the store off the loop.
    take: Callable[[], Awaitable[Sample | None]] | None = getattr(pending, "take", None)

    async def worker() -> None:
        while not run.cancel.is_set():
            sample = await take() if take else next(queue, None)
            if sample is None:
                return
            await run.awork(sample)

    tasks = [asyncio.ensure_future(worker()) for _ in range(workers)]
    watcher = asyncio.ensure_future(_cancel_when_set(run.cancel, tasks))
    await asyncio.wait(tasks)
    await run.drain()  # not cancelled: an answer that came back is kept, whatever stopped the run
    watcher.cancel()
    for task in tasks:
        failure = None if task.cancelled() else task.exception()
        if failure is not None:
            run.failures.append(failure)


async def _cancel_when_set(cancel: threading.Event, tasks: list[asyncio.Task[None]]) -> None:
    while not cancel.is_set():
        await asyncio.sleep(CANCEL_POLL_S)
    for task in tasks:
        task.cancel()
