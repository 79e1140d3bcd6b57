"""Each kind of endpoint failure is one plain sentence in the run's log and status; the stored
error keeps the raw detail, and the key reaches neither."""

from __future__ import annotations

import socket

import pytest
from peers import SENTINEL_KEY, settings_for

from evalui.endpoint.client import EndpointError, ModelClient
from evalui.endpoint.settings import EndpointSettings
from evalui.run.runner import run_experiment
from evalui.store.run_store import RunStore
from support.openai_peer import Reply, ScriptedPeer, error

HELLO = [{"role": "user", "content": "hello"}]


def failure(script, **settings) -> tuple[EndpointError, str]:
    with ScriptedPeer(script) as peer, ModelClient(settings_for(peer, max_retries=0, **settings)) as client:
        with pytest.raises(EndpointError) as caught:
            client.chat(HELLO)
        host = peer.base_url.split("//")[1].split("/")[0]
    return caught.value, host


@pytest.mark.parametrize("reply, words", [
    (error(401, f"bad key {SENTINEL_KEY}"), "HTTP 401 from {host}: the API key is missing or wrong"),
    (error(403), "HTTP 403 from {host}: the key may not use this endpoint or model"),
    (error(404, "model not found"), "HTTP 404 from {host}: the model name or the base URL is wrong "
                                    "(the base URL often ends in /v1)"),
    (error(429, retry_after=90), "rate limited by {host} (HTTP 429); it asks to wait 90 s (Retry-After)"),
    (error(503), "{host} failed on its side (HTTP 503)"),
    (Reply(body="<html>not json</html>"), "{host} answered, but not with a chat completion "
                                          "(the response body is not JSON)"),
    (Reply(body={"choices": []}), "{host} answered, but not with a chat completion (no choices in the response)"),
])
def test_each_http_failure_has_its_sentence(reply, words):
    caught, host = failure(lambda body, n: reply)
    assert caught.plain == words.format(host=host)
    assert SENTINEL_KEY not in caught.plain and SENTINEL_KEY not in str(caught)


def test_a_timeout_says_how_long_it_waited():
    caught, host = failure(lambda body, n: Reply(body={"choices": []}, delay_s=3.0), timeout_s=1.0)
    assert caught.kind == "timeout"
    assert caught.plain == f"{host} sent no complete answer within 1 s (a slow model? raise the timeout)"


def test_refused_and_unresolved_hosts_are_told_apart():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for base_url, words in ((f"http://127.0.0.1:{port}/v1",
                             f"connection refused by 127.0.0.1:{port}: is the server running, and is the port right?"),
                            ("http://no-such-host.invalid/v1",
                             "the host name no-such-host.invalid cannot be resolved (DNS)")):
        with ModelClient(EndpointSettings(base_url=base_url, model="m", timeout_s=5, max_retries=0)) as client:
            with pytest.raises(EndpointError) as caught:
                client.chat(HELLO)
        assert caught.value.plain == words
        assert caught.value.unreachable and "ClientConnector" in str(caught.value)  # the raw detail, stored


class EchoTask:
    benchmark = "echo"

    def build_request(self, sample):
        return {"messages": [{"role": "user", "content": sample.payload["word"]}]}

    def call(self, client, sample, request):
        return client.chat(request["messages"])

    def judge(self, sample, response):
        return response["text"], True, {}


def test_the_run_log_says_the_sentence_and_the_store_keeps_the_detail(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_or_get_experiment("plain-1", "echo", "m", "h", {})
    store.add_samples("plain-1", [("s0", "g", {"word": "w0"})])
    events = []
    with ScriptedPeer(lambda body, n: error(401, f"invalid key {SENTINEL_KEY}")) as peer:
        host = peer.base_url.split("//")[1].split("/")[0]
        final = run_experiment(store, "plain-1", EchoTask(), ModelClient(settings_for(peer)),
                               on_progress=events.append, secrets=[SENTINEL_KEY])
    assert final.errors == 1
    said = [e.message for e in events if e.message.startswith("s0:")]
    assert said == [f"s0: HTTP 401 from {host}: the API key is missing or wrong (after 1 try)"]
    stored = store.samples("plain-1")[0].error
    assert stored.startswith("http_401: HTTP 401:") and "invalid key [redacted]" in stored
    assert SENTINEL_KEY not in stored and not any(SENTINEL_KEY in e.message for e in events)
    store.close()
