"""The circuit breaker's state machine (evalui.endpoint.circuit.Breaker): no I/O, its clock given."""

import pytest

from evalui.endpoint.circuit import Breaker
from evalui.endpoint.in_flight import RequestInFlight, describe

pytestmark = pytest.mark.unit


class Clock:
    def __init__(self):
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def test_an_endpoint_that_never_answered_never_opens_the_circuit():
    # A wrong port or a typo: its requests fail at once with a plain message, they do not wait forever.
    breaker = Breaker("127.0.0.1:9", threshold=3)
    assert not any(breaker.unreachable() for _ in range(10))
    assert not breaker.state().open


def test_consecutive_failures_across_samples_open_it_and_an_answer_resets_the_count():
    clock = Clock()
    breaker = Breaker("host:1", threshold=3, clock=clock)
    breaker.answered()
    assert breaker.unreachable() is False
    assert breaker.unreachable() is False
    breaker.answered()  # a 4xx, a 5xx or a good reply: the host is up, the count starts again
    assert breaker.unreachable() is False
    assert breaker.unreachable() is False
    assert breaker.unreachable() is True
    state = breaker.state()
    assert state.open and state.since == clock.now and state.host == "host:1"
    assert state.describe().startswith("paused: the endpoint at host:1 does not answer (since ")
    # Once open, every later failure finds it open (the request waits, uncharged) …
    assert breaker.unreachable() is True
    # … and an answer to a request sent before the outage does not close it: only a probe does.
    breaker.answered()
    assert breaker.is_open


def test_probes_back_off_up_to_a_cap_and_an_answer_closes_the_circuit():
    breaker = Breaker("h", threshold=1, probe_first_s=1.0, probe_max_s=5.0)
    breaker.answered()
    assert breaker.unreachable()
    assert breaker.state().probe_every_s == 1.0
    delays = [breaker.probe_failed() for _ in range(5)]
    assert delays == [2.0, 4.0, 5.0, 5.0, 5.0]
    assert breaker.state().probes == 5 and "probing every 5 s" in breaker.state().describe()
    breaker.probe_answered()
    state = breaker.state()
    assert not state.open and state.describe() == "" and state.probe_every_s == 1.0
    # Closed again, it takes the full threshold of new failures to open it again.
    assert breaker.unreachable()


def test_a_closed_circuit_ignores_probe_results():
    breaker = Breaker("h", threshold=2)
    assert breaker.probe_failed() == breaker.state().probe_every_s
    assert not breaker.is_open


def test_requests_in_flight_are_described_longest_first_and_capped():
    requests = tuple(RequestInFlight(f"s{i}", 14.2 - i, 2 if i == 0 else 1, 5) for i in range(5))
    assert describe(requests) == "5 in flight: s0 (14 s, try 2/5), s1 (13 s), s2 (12 s), …"
    assert describe(()) == ""
    assert RequestInFlight("x", 3, 1, 5, waiting=True).describe() == "x (3 s, waiting)"
