"""The run store's group commit: batched writes are durable when reported, survive kill -9, keep
their order, and many writers (threads and processes) lose nothing. (Migrations: test_run_state.py.)

Run as a script (``python tests/test_store.py child DB BASE_URL``) this file is the child process
that a test kills: it runs an echo experiment and prints each sample the runner reports finished.
"""
from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from evalui.store.group_commit import GroupCommit
from evalui.store.run_store import RunStore

HERE = Path(__file__).resolve().parents[2]


def _register(store: RunStore, exp_id: str, count: int) -> None:
    store.create_or_get_experiment(exp_id, "echo", "m", "h", {})
    store.add_samples(exp_id, [(f"s{i}", "g", {"word": f"w{i}"}) for i in range(count)])


def _judged_elsewhere(path: Path, exp_id: str) -> set[str]:
    """What another connection (another process, after a crash) sees as judged."""
    with sqlite3.connect(path, timeout=30) as db:
        return {r[0] for r in db.execute("SELECT sample_id FROM samples WHERE exp_id = ? AND stage = 'judged'",
                                         (exp_id,))}


def test_a_write_is_committed_before_its_callback_runs(tmp_path):
    store = RunStore(tmp_path / "s.sqlite")
    _register(store, "e", 50)
    seen_committed = []

    def done(sample_id):
        def check(error):
            assert error is None
            seen_committed.append(sample_id in _judged_elsewhere(store.path, "e"))
        return check

    for i in range(50):
        store.record_rollout("e", f"s{i}", request={"q": i}, response={"text": "x"}, latency_s=0.1,
                             prompt_tokens=1, completion_tokens=1, attempts=1, wait=False)
        store.record_judgement("e", f"s{i}", prediction="x", correct=i % 2 == 0, verdict={}, wait=False,
                               on_done=done(f"s{i}"))
    store.flush()
    assert seen_committed == [True] * 50
    assert store.progress("e") == {"total": 50, "judged": 50, "correct": 25, "errors": 0, "tokens": 100}
    assert store.experiment("e")["status"] == "finished"  # the last verdict's group marked it
    store.close()


def test_writes_keep_their_order_and_close_commits_what_was_queued(tmp_path):
    path = tmp_path / "s.sqlite"
    store = RunStore(path)
    _register(store, "e", 3)
    # An answer, then a failure of its judge (back to init), queued back to back: the last one wins.
    store.record_rollout("e", "s0", request={}, response={"text": "a"}, latency_s=0, prompt_tokens=0,
                         completion_tokens=0, attempts=1, wait=False)
    store.record_error("e", "s0", request={}, error="task_error: boom", attempts=0, wait=False)
    for i in (1, 2):
        store.record_judgement("e", f"s{i}", prediction=i, correct=True, verdict={}, wait=False)
    store.close()  # never flushed explicitly
    reopened = RunStore(path)
    stages = {s.sample_id: (s.stage, s.error) for s in reopened.samples("e")}
    assert stages == {"s0": ("init", "task_error: boom"), "s1": ("judged", None), "s2": ("judged", None)}
    reopened.close()


def test_a_verdict_folded_into_its_queued_answer_stores_both(tmp_path):
    store = RunStore(tmp_path / "s.sqlite")
    _register(store, "e", 2)
    done = []
    with store._lock:  # the writer waits: both answers are still queued when their verdicts come
        for i in range(2):
            ticket = store.record_rollout("e", f"s{i}", request={"q": i}, response={"text": f"a{i}"}, latency_s=0.5,
                                          prompt_tokens=3, completion_tokens=4, attempts=2,
                                          trajectory=[{"text": f"a{i}"}], wait=False)
            store.record_judgement("e", f"s{i}", prediction=f"p{i}", correct=i == 0, verdict={"v": i}, wait=False,
                                   after=ticket, on_done=done.append)
    store.flush()
    assert done == [None, None]
    for i, sample in enumerate(store.samples("e")):
        assert (sample.stage, sample.request, sample.response, sample.prediction, sample.correct, sample.verdict,
                sample.latency_s, sample.attempts, sample.trajectory) == \
            ("judged", {"q": i}, {"text": f"a{i}"}, f"p{i}", i == 0, {"v": i}, 0.5, 2, [{"text": f"a{i}"}])
    assert store.experiment("e")["status"] == "finished"
    store.close()


def test_many_threads_writing_at_once_lose_nothing(tmp_path):
    store = RunStore(tmp_path / "s.sqlite")
    _register(store, "e", 800)
    reported = []

    def writer(first: int) -> None:
        for i in range(first, 800, 8):
            store.record_rollout("e", f"s{i}", request={"i": i}, response={"text": str(i)}, latency_s=0.01,
                                 prompt_tokens=2, completion_tokens=3, attempts=1, wait=i % 3 == 0)
            store.record_judgement("e", f"s{i}", prediction=i, correct=True, verdict={"i": i}, wait=False,
                                   on_done=lambda error, i=i: reported.append((i, error)))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):  # synchronous writes interleave with the batches
        store.heartbeat("e")
    for thread in threads:
        thread.join()
    store.flush()
    assert sorted(i for i, _ in reported) == list(range(800)) and all(e is None for _, e in reported)
    assert store.progress("e") == {"total": 800, "judged": 800, "correct": 800, "errors": 0, "tokens": 4000}
    assert {s.verdict["i"] for s in store.samples("e")} == set(range(800))
    store.close()


def test_one_bad_write_in_a_group_does_not_take_the_others_with_it(tmp_path):
    db = sqlite3.connect(tmp_path / "g.sqlite", check_same_thread=False)
    db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
    db.commit()
    lock = threading.RLock()
    writer = GroupCommit(db, lock)
    outcomes = {}
    with lock:  # the writer waits for the lock, so all four queue up and commit as one group
        for key in ("a", "b", "a", "c"):
            writer.submit([("INSERT INTO t (k) VALUES (?)", (key,))], wait=False,
                          on_done=lambda error, n=len(outcomes), key=key:  # noqa: B008 (the count when submitted)
                           outcomes.__setitem__((n, key), error))
            outcomes[(len(outcomes), key)] = "pending"
        time.sleep(0.05)
    writer.flush()
    assert [k for (k,) in db.execute("SELECT k FROM t ORDER BY k")] == ["a", "b", "c"]
    assert [type(e).__name__ if e else None for e in outcomes.values()] == [None, None, "IntegrityError", None]
    with pytest.raises(sqlite3.IntegrityError):  # a writer that waits gets its own error
        writer.submit([("INSERT INTO t (k) VALUES (?)", ("b",))])
    writer.close()
    db.close()


def test_writes_handed_over_together_still_commit_and_fail_one_by_one(tmp_path):
    """submit_many (a run's answers judged together): each write has its own outcome and callback,
    in order, and a bad one takes no other with it."""
    db = sqlite3.connect(tmp_path / "m.sqlite", check_same_thread=False)
    db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
    db.commit()
    writer = GroupCommit(db, threading.RLock())
    outcomes: list = []
    writer.submit_many([([("INSERT INTO t (k) VALUES (?)", (key,))],
                         lambda error, key=key: outcomes.append((key, type(error).__name__ if error else None)))
                        for key in ("a", "b", "a", "c")])
    writer.submit_many([])  # nothing to hand over
    writer.flush()
    assert outcomes == [("a", None), ("b", None), ("a", "IntegrityError"), ("c", None)]
    assert [k for (k,) in db.execute("SELECT k FROM t ORDER BY k")] == ["a", "b", "c"]
    writer.close()
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        writer.submit_many([([("INSERT INTO t (k) VALUES (?)", ("d",))], None)])
    db.close()


def test_a_callback_that_writes_does_not_deadlock(tmp_path):
    store = RunStore(tmp_path / "s.sqlite")
    _register(store, "e", 2)
    store.record_judgement("e", "s0", prediction=0, correct=True, verdict={}, wait=False,
                           on_done=lambda error: store.set_status("e", "from-callback"))
    store.flush()
    assert store.experiment("e")["stored_status"] == "from-callback"
    store.close()


def _open_fresh_stores(folder: str, rounds: int, barrier, errors) -> None:
    for number in range(rounds):
        barrier.wait(timeout=60)  # every process opens the same new file at the same moment
        try:
            RunStore(url=f"sqlite:///{folder}/store-{number}.sqlite").close()
        except Exception as error:  # reported to the test, which names it
            errors.put(f"round {number}: {error!r}")
