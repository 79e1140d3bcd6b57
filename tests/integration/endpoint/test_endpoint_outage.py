"""An endpoint that dies mid-run and comes back: the run pauses, spends nothing on the remaining
samples while it is down, resumes by itself, and no sample is counted wrong or as an error.

The model is a scripted peer that is stopped (its port then refuses connections) and started
again on the same port. Its answers close their connections, so no keep-alive connection
outlives the stop.
"""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest
from peers import settings_for
from waiting import HANG_S, wait_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.endpoint.circuit import DEFAULT_THRESHOLD
from evalui.endpoint.client import EndpointError, ModelClient
from evalui.run import lifecycle
from evalui.run.live import live_requests
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

SAMPLES = 12
CONCURRENCY = 3


@pytest.fixture(scope="module")
def oracle():
    return BfclOracle(["simple_python"])



def closing(reply):
    return replace(reply, headers={**reply.headers, "connection": "close"})


def held_run(store, oracle, stopped: threading.Event):
    """A registered run against a peer that answers three requests, then holds the rest until
    ``stopped`` is set: (the script, for the peer that comes back on the same port; the peer; its
    port; the settings; the run's id)."""

    def script(body, n):
        if n > 3:  # later requests are held until the endpoint is stopped: the run cannot finish first
            stopped.wait(HANG_S)
        return closing(oracle.gold_reply(body))

    first = ScriptedPeer(script).start()
    port = first._server.server_address[1]
    settings = settings_for(first, max_retries=4, timeout_s=10.0)
    exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=SAMPLES, mode="fc"),
                               settings)
    return script, first, port, settings, exp_id


def test_a_dead_endpoint_pauses_the_run_and_a_probe_resumes_it(store, oracle):
    stopped = threading.Event()

    script, first, port, settings, exp_id = held_run(store, oracle, stopped)
    client = ModelClient(settings)
    events, outcome = [], {}

    def run():
        try:
            outcome["summary"] = lifecycle.execute(store, exp_id, settings, client=client, concurrency=CONCURRENCY,
                                                   on_progress=events.append)
        except BaseException as exc:  # handed to the test below
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    second = None
    try:
        wait_for(lambda: store.progress(exp_id)["judged"] >= 3, "the first samples were never judged")
        first.stop()  # the port now refuses connections; the requests held in flight are answered
        stopped.set()
        wait_for(lambda: (live := live_requests(exp_id)) and live.paused(), "the run never paused")
        paused_at = store.progress(exp_id)
        live = live_requests(exp_id)
        assert "paused: the endpoint at 127.0.0.1:" in live.paused() and "probing every" in live.paused()
        # While paused no sample fails: the ones in flight wait for the endpoint.
        assert paused_at["errors"] == 0 and paused_at["judged"] < SAMPLES
        # A request still in its backoff finds the circuit open when it wakes, and waits too.
        wait_for(lambda: (waiting := live.requests()) and all(r.waiting for r in waiting),
                 "the requests in flight never all waited for the endpoint")
        wait_for(lambda: client.circuit.state().probes >= 1, "the endpoint was never probed")
        assert live.paused()  # probes that get no answer keep it paused

        second = ScriptedPeer(script, port=port).start()  # the endpoint is back, on the same port
        thread.join(HANG_S)
        assert not thread.is_alive(), "the run never finished after the endpoint came back"
    finally:
        first.stop() if second is None else second.stop()
        client.close()
    assert "error" not in outcome, outcome.get("error")
    summary = outcome["summary"]
    assert summary["status"] == "finished"
    assert summary["judged"] == SAMPLES and summary["correct"] == SAMPLES and summary["errors"] == 0
    samples = store.samples(exp_id)
    assert all(s.correct and not s.error for s in samples)
    # Bounded: the threshold's failures and the requests that were in flight, not five tries for
    # every remaining sample (8 × 5 = 40 before the breaker).
    failed_tries = sum(s.attempts for s in samples) - SAMPLES
    assert 1 <= failed_tries <= DEFAULT_THRESHOLD + 2 * CONCURRENCY, failed_tries
    messages = [e.message for e in events]
    assert any(m.startswith("paused: the endpoint at 127.0.0.1:") for m in messages), messages
    assert any(m.startswith("resumed: the endpoint at 127.0.0.1:") for m in messages), messages
    assert any(e.paused for e in events) and not events[-1].paused
    assert second.chat_requests(), "nothing was asked after the endpoint came back"


def test_an_endpoint_that_never_answered_fails_at_once_in_plain_words(store):
    # A wrong port is not an outage: no pause, the request fails, and says why in one sentence.
    with ScriptedPeer(lambda body, n: None) as peer:
        port = peer._server.server_address[1]
    settings = settings_for(peer, max_retries=1)
    with ModelClient(settings) as client:
        with pytest.raises(EndpointError) as caught:
            client.chat([{"role": "user", "content": "hi"}])
    assert caught.value.kind == "connection" and caught.value.unreachable
    assert caught.value.plain == (f"connection refused by 127.0.0.1:{port}: is the server running, "
                                  "and is the port right?")
    assert "ClientConnectorError" in str(caught.value)  # the raw text stays in the stored detail


def test_a_paused_run_can_be_cancelled_and_a_later_resume_finishes_it(store, oracle):
    stopped = threading.Event()

    script, first, port, settings, exp_id = held_run(store, oracle, stopped)
    cancel = threading.Event()
    thread = threading.Thread(target=lambda: lifecycle.execute(store, exp_id, settings, concurrency=CONCURRENCY,
                                                               cancel=cancel), daemon=True)
    thread.start()
    try:
        wait_for(lambda: store.progress(exp_id)["judged"] >= 3, "the first samples were never judged")
        first.stop()
        stopped.set()
        wait_for(lambda: (live := live_requests(exp_id)) and live.paused(), "the run never paused")
        cancel.set()
        thread.join(HANG_S)
        assert not thread.is_alive(), "a cancel did not end the paused run"
    finally:
        first.stop()
    cancelled = store.experiment(exp_id)
    counts = store.progress(exp_id)
    assert cancelled["status"] == "cancelled" and counts["errors"] == 0 and counts["judged"] < SAMPLES
    assert not any(s.error for s in store.samples(exp_id))  # the waiting samples are pending, as they were

    with ScriptedPeer(script, port=port):  # back on the same port: a resume finishes the run
        summary = lifecycle.execute(store, exp_id, settings, concurrency=CONCURRENCY)
    assert summary["status"] == "finished" and summary["correct"] == SAMPLES and summary["errors"] == 0
