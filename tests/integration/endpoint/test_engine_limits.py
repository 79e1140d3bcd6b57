"""Hostile endpoints against the client and the runner: drips, floods, long Retry-After, redirects,
echoed keys, and cancel, Ctrl-C and SIGTERM in the middle of a request."""

from __future__ import annotations

import json
import threading

import pytest
from peers import SENTINEL_KEY, Held, cancel_when_asked, settings_for
from waiting import finishes

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.endpoint.client import Cancelled, EndpointError, ModelClient
from evalui.run import lifecycle
from evalui.run.runner import run_experiment
from integration.run.test_runner import EchoTask
from support.openai_peer import Reply, ScriptedPeer, completion, error

MESSAGES = [{"role": "user", "content": "hi"}]


def dripping(text="x" * 400, drip_s=0.2) -> Reply:
    reply = completion(text)
    reply.drip_s = drip_s
    return reply


def test_a_dripping_body_is_cut_at_the_deadline():
    # The whole body takes minutes to drip; a per-read timeout would wait for it and return it.
    with ScriptedPeer(lambda body, n: dripping()) as peer:
        client = ModelClient(settings_for(peer, timeout_s=1.0, max_retries=1), backoff_initial_s=0.01)
        with pytest.raises(EndpointError) as caught:
            client.chat(MESSAGES)
        asked = len(peer.chat_requests())
    assert caught.value.kind == "timeout" and caught.value.attempts == 2 and asked == 2


def test_a_run_against_a_dripping_endpoint_ends_within_its_deadlines(store):
    with ScriptedPeer(lambda body, n: dripping()) as peer:
        settings = settings_for(peer, timeout_s=1.0, max_retries=0)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=4, mode="fc"), settings)
        summary = finishes(lambda: lifecycle.execute(store, exp_id, settings, concurrency=4), "the run")
    assert summary["errors"] == 4 and summary["status"] == "incomplete"
    assert all("timeout" in s.error for s in store.samples(exp_id))


def test_a_response_over_the_cap_is_an_error_and_is_not_kept(store):
    big = "y" * 3_000_000
    with ScriptedPeer(lambda body, n: completion(big)) as peer:
        client = ModelClient(settings_for(peer))
        with pytest.raises(EndpointError) as caught:
            client.chat(MESSAGES)
        assert caught.value.kind == "response_too_large" and caught.value.attempts == 1
        small_cap = ModelClient(settings_for(peer, max_response_bytes=10_000))
        with pytest.raises(EndpointError, match="10000 bytes"):
            small_cap.chat(MESSAGES)
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=2, mode="prompt"),
                                   settings)
        lifecycle.execute(store, exp_id, settings, concurrency=2)
    assert len(peer.chat_requests()) == 4  # never retried
    for sample in store.samples(exp_id):
        assert sample.response is None and "response_too_large" in sample.error
    assert "yyyy" not in (store.path.read_bytes().decode("latin-1"))


def test_a_compressed_body_is_capped_after_decompression_whatever_its_declared_size():
    """A few kB of gzip that inflate to 3 MB: the declared length is small, the body is not."""
    import gzip

    bomb = completion("y" * 3_000_000)
    bomb.raw = gzip.compress(json.dumps(bomb.body).encode())
    bomb.headers = {"content-encoding": "gzip"}
    assert len(bomb.raw) < 20_000
    with ScriptedPeer(lambda body, n: bomb) as peer:
        with pytest.raises(EndpointError) as caught:
            ModelClient(settings_for(peer)).chat(MESSAGES)
    assert caught.value.kind == "response_too_large" and "larger than" in str(caught.value)


@pytest.mark.parametrize("retry_after", [55, 3600], ids=["past-the-budget", "past-the-cap"])
def test_a_retry_after_past_the_deadline_is_not_waited_for(retry_after):
    # 55 s is under the 60 s cap but past the call's 4 s budget (1 s x 4 attempts); an hour is past both.
    with ScriptedPeer(lambda body, n: error(429, "slow down", retry_after=retry_after)) as peer:
        client = ModelClient(settings_for(peer, timeout_s=1.0, max_retries=3))
        with pytest.raises(EndpointError, match=f"Retry-After {retry_after} s is past") as caught:
            finishes(lambda: client.chat(MESSAGES), "a call told to retry after the deadline")
        asked = len(peer.chat_requests())
    assert caught.value.kind == "rate_limited" and caught.value.attempts == 1 and asked == 1


def test_a_short_retry_after_is_honoured():
    with ScriptedPeer(lambda body, n: error(429, retry_after=0.3) if n == 1 else completion("ok")) as peer:
        client = ModelClient(settings_for(peer, timeout_s=2.0))
        reply = client.chat(MESSAGES)
        gap = peer.chat_requests()[1].received_at - peer.chat_requests()[0].received_at
    assert reply.text == "ok" and reply.attempts == 2 and gap >= 0.3


def test_redirects_are_never_followed():
    with ScriptedPeer(lambda body, n: completion("elsewhere")) as target:
        location = target.base_url + "/chat/completions"
        with ScriptedPeer(lambda body, n: Reply(status=307, body={}, headers={"location": location})) as peer:
            with pytest.raises(EndpointError) as caught:
                ModelClient(settings_for(peer)).chat(MESSAGES)
        assert caught.value.kind == "redirect_refused"
        assert target.requests == []  # the key never went to the other host


def test_a_key_echoed_by_the_endpoint_is_redacted_everywhere(store, tmp_path):
    echo = f"my key is {SENTINEL_KEY}"
    with ScriptedPeer(lambda body, n: completion(echo, [("calculate_triangle_area", json.dumps({"base": SENTINEL_KEY}))])) as peer:
        reply = ModelClient(settings_for(peer)).chat(MESSAGES)
        assert SENTINEL_KEY not in reply.text and SENTINEL_KEY not in reply.tool_calls[0].arguments
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=2, mode="fc"), settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=2)
    assert summary["judged"] == 2
    folder = tmp_path / "data"
    for path in [store.path, *folder.rglob("*")]:
        if path.is_file():
            assert SENTINEL_KEY.encode() not in path.read_bytes(), path


def test_credentials_in_the_base_url_reach_no_artefact(store, tmp_path):
    with ScriptedPeer(lambda body, n: completion("[calculate_triangle_area(base=10, height=5)]")) as peer:
        host = peer.base_url.split("//", 1)[1]
        settings = settings_for(peer, base_url=f"http://alice:hunter2pw@{host}?api-key=querysecret9")
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=2, mode="prompt"),
                                   settings)
        summary = lifecycle.execute(store, exp_id, settings, concurrency=2)
        assert peer.chat_requests()[0].path.endswith("/chat/completions?api-key=querysecret9")
    assert summary["correct"] >= 1
    stored = store.experiment(exp_id)["config"]["endpoint"]["base_url"]
    assert "hunter2pw" not in stored and "querysecret9" not in stored and "[redacted]" in stored
    for path in [store.path, *(tmp_path / "data").rglob("*")]:
        if path.is_file():
            data = path.read_bytes()
            assert b"hunter2pw" not in data and b"querysecret9" not in data, path


def _slow_run(store, peer, concurrency=2, **overrides):
    store.create_or_get_experiment("slow-1", "echo", "m", "h", {})
    store.add_samples("slow-1", [(f"s{i}", "g", {"word": f"w{i}"}) for i in range(6)])
    cancel = threading.Event()
    client = ModelClient(settings_for(peer, **overrides))
    outcome = {}

    def target():
        outcome["progress"] = run_experiment(store, "slow-1", EchoTask(), client, concurrency=concurrency, cancel=cancel)

    thread = threading.Thread(target=target)
    thread.start()
    return cancel, thread, outcome


@pytest.mark.parametrize("reply", [None, error(429, retry_after=20)], ids=["in-flight", "retry-wait"])
def test_cancel_stops_requests_in_flight_and_retry_waits(store, reply):
    # In flight: the peer holds the answer until the test ends, so a run that waited for it would
    # never end. Retry wait: a run that waited the 20 s would ask again, and its samples would fail.
    with Held() as held, ScriptedPeer(held if reply is None else lambda body, n: reply) as peer:
        cancel, thread, outcome = _slow_run(store, peer, timeout_s=600, max_retries=2)
        cancel_when_asked(peer, cancel, thread)
        asked = len(peer.chat_requests())
    assert asked == 2  # one request for each of the two samples in flight, none after the cancel
    assert store.experiment("slow-1")["status"] == "cancelled"
    assert all(s.stage == "init" and s.error is None for s in store.samples("slow-1"))  # waiting for a resume


def test_a_cancelled_client_raises_cancelled_at_once():
    with ScriptedPeer(lambda body, n: completion("x")) as peer:
        client = ModelClient(settings_for(peer))
        event = threading.Event()
        event.set()
        client.cancel_on(event)
        with pytest.raises(Cancelled):
            client.chat(MESSAGES)
        assert peer.requests == []
