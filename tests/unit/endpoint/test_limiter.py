"""The process-wide endpoint limiter: runs against one endpoint share its concurrency and RPM, as the
scripted peer sees them; a run's own concurrency still caps that run."""
from __future__ import annotations

import threading

from waiting import HANG_S, wait_for

from evalui.endpoint.limiter import endpoint_key, endpoint_limiter, join_endpoint


def test_a_call_waiting_for_a_slot_stops_on_cancel():
    lease = join_endpoint("http://limiter.test/v1", "m", concurrency=1)
    limiter = endpoint_limiter("http://limiter.test/v1", "m")
    try:
        assert lease.acquire()
        cancel, outcome = threading.Event(), []
        waiter = threading.Thread(target=lambda: outcome.append(lease.acquire(cancel)), daemon=True)
        waiter.start()
        wait_for(lambda: limiter.waiting or not waiter.is_alive(), "the second call neither waited nor ended")
        assert waiter.is_alive() and outcome == []  # the one slot is taken: it waits
        cancel.set()
        waiter.join(HANG_S)
        assert outcome == [False]
        lease.release()
        assert lease.acquire() and lease.try_acquire() is None
        lease.release()
    finally:
        lease.close()


def test_a_freed_slot_goes_to_the_call_that_waited_first():
    """A run whose call just ended must not take the freed slot ahead of another run's waiting call
    (before, it could, and the other run waited until the first had finished)."""
    lease = join_endpoint("http://fair.test/v1", "m", concurrency=1)
    limiter = endpoint_limiter("http://fair.test/v1", "m")
    try:
        assert lease.acquire()
        order: list[str] = []

        def wait_then_note(name):
            assert lease.acquire()
            order.append(name)
            lease.release()

        first = threading.Thread(target=wait_then_note, args=("waited first",))
        first.start()
        wait_for(lambda: limiter.waiting >= 1, "the waiting call never queued")
        lease.release()
        assert lease.try_acquire() is None  # the loop's non-blocking path does not jump the queue
        wait_then_note("came back")  # the run that just released asks again at once
        first.join(HANG_S)
        assert order == ["waited first", "came back"]
    finally:
        lease.close()


def test_an_endpoint_is_one_key_however_typed_and_is_forgotten_when_idle():
    assert endpoint_key("HTTP://User:pw@Host:8000/v1/", "m") == endpoint_key("http://host:8000/v1?api-key=x", "m")
    assert "pw" not in repr(endpoint_key("http://user:pw@host/v1", "m"))
    lease = join_endpoint("http://forget.test/v1", "m", concurrency=3)
    limiter = endpoint_limiter("http://forget.test/v1", "m")
    assert limiter.concurrency == 3
    with join_endpoint("http://forget.test/v1", "m", concurrency=5):
        assert limiter.concurrency == 5  # the largest of the runs using it
    assert limiter.concurrency == 3
    lease.close()
    assert endpoint_limiter("http://forget.test/v1", "m") is not limiter
