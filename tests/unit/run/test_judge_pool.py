"""The judges' child process: jobs judged there give what they give here, a judge that raises fails
its own job, and a batch the child cannot take (a job that does not pickle, a child that died, a
Ctrl-C) is judged here: no outcome is lost."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time

import pytest

from evalui.run import judge_pool
from evalui.run.judge_pool import JudgePool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the judges' child is forked on Linux")


def where_and_square(number: int) -> tuple[int, int]:
    """Module-level, so that a job naming it pickles."""
    return os.getpid(), number * number


def refuse(number: int) -> None:
    raise ValueError(f"no verdict for {number}")


def hang_unless(parent_pid: int) -> int:
    if os.getpid() != parent_pid:
        time.sleep(600)  # a stuck judge in the child: longer than _judged waits for the outcomes
    return parent_pid


def die_unless(parent_pid: int) -> int:
    if os.getpid() != parent_pid:
        os._exit(3)  # the child dies mid-batch, as a segfaulting checker would
    return parent_pid


def _judged(pool: JudgePool, jobs: list) -> list:
    """Submit every job on a fresh loop (in a thread of its own: another test may hold a running
    loop in this one), drain, and return the outcomes in the order they were submitted."""
    outcomes: dict[int, tuple] = {}
    failure: list[BaseException] = []

    async def main() -> None:
        for index, job in enumerate(jobs):
            pool.submit(job, lambda outcome, index=index: outcomes.__setitem__(index, outcome))
        await pool.drain()

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as error:  # re-raised in the test's thread
            failure.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    if failure:
        raise failure[0]
    return [outcomes[index] for index in range(len(jobs))]


@pytest.fixture
def pool():
    started = JudgePool.start()
    assert started is not None
    yield started
    started.close()


def test_jobs_are_judged_in_the_child_and_come_back_in_order(pool):
    outcomes = _judged(pool, [(where_and_square, (n,)) for n in range(150)])  # more than one batch
    assert [value[1] for ok, value, _ in outcomes] == [n * n for n in range(150)]
    assert all(ok for ok, *_ in outcomes)
    assert {value[0] for _, value, _ in outcomes} != {os.getpid()}  # not this process
    assert len({value[0] for _, value, _ in outcomes}) == 1  # one child for them all
    assert not pool.broken


def test_a_judge_that_raises_fails_its_own_job_only(pool):
    outcomes = _judged(pool, [(where_and_square, (2,)), (refuse, (7,)), (where_and_square, (3,))])
    assert outcomes[1][:2] == (False, "ValueError: no verdict for 7")
    assert [outcomes[0][1][1], outcomes[2][1][1]] == [4, 9]
    assert not pool.broken


def test_a_job_that_does_not_pickle_is_judged_here(pool):
    # A lambda pickles by a name nobody can import: the batch comes back refused and is judged here.
    outcomes = _judged(pool, [(where_and_square, (2,)), (lambda n: (os.getpid(), -n), (5,))])
    assert pool.broken
    assert [value for ok, value, _ in outcomes] == [(os.getpid(), 4), (os.getpid(), -5)]


def test_a_child_that_dies_loses_no_outcome(pool):
    parent = os.getpid()
    outcomes = _judged(pool, [(where_and_square, (4,)), (die_unless, (parent,)), (where_and_square, (6,))])
    assert pool.broken
    assert [ok for ok, *_ in outcomes] == [True, True, True]
    assert outcomes[1][1] == parent and outcomes[0][1] == (parent, 16)
    # Later jobs go straight to this process.
    assert _judged(pool, [(where_and_square, (5,))])[0][1] == (parent, 25)


def test_the_child_leaves_ctrl_c_to_the_parent(pool):
    child = _judged(pool, [(where_and_square, (1,))])[0][1][0]
    os.kill(child, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole process group
    again = _judged(pool, [(where_and_square, (3,))])[0][1]
    assert again == (child, 9) and not pool.broken


def test_no_child_with_one_cpu(monkeypatch):
    # The child would take the event loop's only CPU: the run judges on its loop, as before.
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert JudgePool.start() is None


def test_a_stuck_child_is_killed_and_its_batch_judged_here(pool, monkeypatch):
    monkeypatch.setattr(judge_pool, "BATCH_DEADLINE_S", 0.5)
    parent = os.getpid()
    # Without the kill the outcomes never come within _judged's wait, and it fails on the missing one.
    outcomes = _judged(pool, [(hang_unless, (parent,)), (where_and_square, (3,))])
    assert pool.broken and [value for _, value, _ in outcomes] == [parent, (parent, 9)]
