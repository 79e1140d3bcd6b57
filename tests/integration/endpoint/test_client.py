"""The model client against a real scripted HTTP peer: retries, Retry-After, errors, tokens."""

from __future__ import annotations

import pytest
from peers import SENTINEL_KEY, Held, settings_for
from waiting import finishes

from evalui.endpoint.client import EndpointError, ModelClient
from support.openai_peer import Reply, ScriptedPeer, completion, error

MESSAGES = [{"role": "user", "content": "hi"}]


def sequence(*replies):
    """A script that plays the replies in order, then repeats the last."""
    return lambda body, n: replies[min(n, len(replies)) - 1]


def fast_client(peer, **overrides):
    return ModelClient(settings_for(peer, **overrides), backoff_initial_s=0.01, backoff_max_s=0.05)


def test_plain_text_and_usage():
    with ScriptedPeer(sequence(completion("hello", prompt_tokens=7, completion_tokens=3))) as peer:
        reply = fast_client(peer).chat(MESSAGES)
        assert reply.text == "hello" and reply.prompt_tokens == 7 and reply.completion_tokens == 3
        assert reply.attempts == 1
        request = peer.chat_requests()[0]
        # bfcl-eval's defaults: temperature 0.001 and no max_tokens
        assert request.body["model"] == "scripted-model" and request.body["temperature"] == 0.001
        assert "max_tokens" not in request.body
        assert request.authorization == f"Bearer {SENTINEL_KEY}"


def test_tool_calls_are_returned():
    with ScriptedPeer(sequence(completion(None, [("get_weather", '{"city": "Paris"}')]))) as peer:
        tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}}]
        reply = fast_client(peer).chat(MESSAGES, tools=tools)
        assert [(c.name, c.arguments) for c in reply.tool_calls] == [("get_weather", '{"city": "Paris"}')]
        assert peer.chat_requests()[0].body["tools"] == tools


@pytest.mark.parametrize(
    "failure",
    [error(429, "slow down"), error(500), error(503), Reply(status=200, body="this is not json"),
     Reply(status=200, body={"id": "x", "choices": []}), Reply(status=502, body="<html>bad gateway</html>")],
    ids=["429", "500", "503", "garbage", "no-choices", "502-html"],
)
def test_transient_failures_are_retried(failure):
    with ScriptedPeer(sequence(failure, failure, completion("ok"))) as peer:
        reply = fast_client(peer).chat(MESSAGES)
        assert reply.text == "ok" and reply.attempts == 3
        assert len(peer.chat_requests()) == 3


def test_retry_after_is_honoured():
    # The backoff alone would ask again within 0.05 s. The peer records a request before it answers
    # and the client waits from the answer on, so a loaded machine can only make the gap longer.
    with ScriptedPeer(sequence(error(429, retry_after=0.6), completion("ok"))) as peer:
        reply = fast_client(peer).chat(MESSAGES)
        first, second = peer.chat_requests()
    assert reply.text == "ok" and reply.attempts == 2
    assert second.received_at - first.received_at >= 0.55


def test_timeout_is_retried():
    # The first answer is held until the test ends: only a timeout and a retry get the second one.
    with Held(completion("late")) as held:
        script = lambda body, n: held(body, n) if n == 1 else completion("fast")  # noqa: E731
        with ScriptedPeer(script) as peer:
            reply = finishes(lambda: fast_client(peer, timeout_s=1.0).chat(MESSAGES), "a call with a 1 s timeout")
            asked = len(peer.chat_requests())
    assert reply.text == "fast" and reply.attempts == asked >= 2


def test_client_error_is_not_retried():
    with ScriptedPeer(sequence(error(400, "bad request"))) as peer:
        with pytest.raises(EndpointError) as caught:
            fast_client(peer).chat(MESSAGES)
        assert caught.value.kind == "http_400" and caught.value.attempts == 1
        assert len(peer.chat_requests()) == 1


def test_persistent_failure_gives_up_after_its_retries():
    with ScriptedPeer(sequence(error(500))) as peer:
        with pytest.raises(EndpointError) as caught:
            fast_client(peer, max_retries=2).chat(MESSAGES)
        assert caught.value.kind == "server_error" and caught.value.attempts == 3
        assert len(peer.chat_requests()) == 3


def test_connection_refused_is_an_endpoint_error():
    with ScriptedPeer(sequence(completion("x"))) as peer:
        settings = settings_for(peer, max_retries=1)
    client = ModelClient(settings, backoff_initial_s=0.01, backoff_max_s=0.02)
    with pytest.raises(EndpointError) as caught:
        client.chat(MESSAGES)
    assert caught.value.kind == "connection"


def test_key_is_not_in_settings_repr():
    with ScriptedPeer(sequence(completion("x"))) as peer:
        settings = settings_for(peer)
    assert SENTINEL_KEY not in repr(settings)
    assert SENTINEL_KEY not in str(settings.public())


def test_credentials_in_the_base_url_are_sent_as_basic_auth_not_in_the_url():
    import base64

    with ScriptedPeer(sequence(completion("ok"))) as peer:
        host = peer.base_url.split("//", 1)[1]
        reply = fast_client(peer, base_url=f"http://alice:s%40cret@{host}").chat(MESSAGES)
        request = peer.chat_requests()[0]
    assert reply.text == "ok" and "alice" not in request.path
    assert request.authorization == "Basic " + base64.b64encode(b"alice:s@cret").decode()
