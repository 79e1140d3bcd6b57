"""evalui.run.phases: a phase not reached is null, concurrent sums lose nothing, and the
process's age is known on Linux."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from evalui.run.phases import RunPhases, cpu_seconds, process_age_s, thread_cpu_seconds


def test_phases_not_reached_are_null_and_the_rest_are_spans():
    phases = RunPhases()
    timings = phases.timings()
    assert timings["load_s"] is None and timings["run_s"] is None and timings["run_cpu_s"] is None
    assert timings["total_s"] >= 0 and timings["cpu_s"] > 0

    phases.mark_ready(commit_s=1.0)
    phases.mark_first_request()
    first = phases.first_request
    phases.mark_first_request()  # only the first one counts
    phases.mark_run_end(commit_s=1.5)
    timings = phases.timings()
    assert phases.first_request == first
    assert all(timings[key] is not None and timings[key] >= 0 for key in timings
               if key not in ("loop_cpu_s", "claim_wait_s"))
    assert timings["loop_cpu_s"] is None  # no loop was watched
    assert timings["claim_wait_s"] is None  # no workers on a loop claimed samples
    assert timings["commit_s"] == 0.5  # the store's commits during the run, not before it


def test_a_run_with_nothing_to_ask_has_an_empty_run_phase():
    phases = RunPhases()
    phases.mark_ready()
    phases.mark_run_end()
    timings = phases.timings()
    assert timings["first_request_s"] is not None and timings["run_s"] == 0.0


def test_sums_from_many_threads_lose_nothing():
    phases = RunPhases()

    def add():
        for _ in range(20_000):
            phases.add_judge(0.5)
            phases.add_store(0.25)

    threads = [threading.Thread(target=add) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert phases.judge_s == 8 * 20_000 * 0.5 and phases.store_s == 8 * 20_000 * 0.25


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process's start is read from /proc")
def test_the_process_age_is_known_and_grows():
    first = process_age_s()
    time.sleep(0.05)
    assert first is not None and 0 < first <= process_age_s()
    origin = RunPhases.since_process_start().origin
    now = time.perf_counter()
    assert origin <= now - first  # the run's clock starts where the process did, not later
    assert cpu_seconds() > 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's CPU is read from /proc")
def test_the_loop_cpu_is_the_watched_threads_alone():
    """loop_cpu_s counts the watched thread's CPU over the run phase, not the others'."""
    release, spun, finish = threading.Event(), threading.Event(), threading.Event()

    def busy(seconds: float) -> None:
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass

    def loop() -> None:
        release.wait()
        busy(0.3)
        spun.set()
        finish.wait()  # alive until the run's end is marked, as a client's loop is

    watched = threading.Thread(target=loop)
    watched.start()
    phases = RunPhases()
    phases.watch_loop(watched)
    phases.mark_ready()
    busy(0.3)  # this thread's CPU is the process's, not the loop's
    release.set()
    spun.wait()
    phases.mark_run_end()
    finish.set()
    watched.join()
    timings = phases.timings()
    assert 0.2 <= timings["loop_cpu_s"] <= 0.5, timings
    assert timings["run_cpu_s"] >= timings["loop_cpu_s"] + 0.2, timings
    assert thread_cpu_seconds(threading.get_native_id()) > 0
    assert thread_cpu_seconds(None) is None and thread_cpu_seconds(2**31 - 1) is None  # no such thread


def test_a_run_without_a_loop_has_no_loop_cpu():
    phases = RunPhases()
    phases.watch_loop(None)
    phases.mark_ready()
    phases.mark_run_end()
    assert phases.timings()["loop_cpu_s"] is None


def _cycles(count: int) -> None:
    for _ in range(count):
        node: list = []
        node.append(node)  # garbage only the cyclic collector frees


def test_the_collectors_seconds_are_those_of_the_run_phase_alone():
    import gc

    phases = RunPhases()
    _cycles(300_000)
    gc.collect()  # before the run phase: not its time
    phases.mark_ready()
    gc.disable()
    try:
        phases.mark_run_end()
    finally:
        gc.enable()
    _cycles(300_000)
    gc.collect()  # after it: not its time either
    assert phases.timings()["gc_s"] == 0.0

    phases.mark_ready()
    _cycles(300_000)
    gc.collect()
    phases.mark_run_end()
    assert phases.timings()["gc_s"] >= 0.001  # walking 300,000 cycles takes milliseconds
    assert RunPhases().timings()["gc_s"] is None  # no run phase, no figure
