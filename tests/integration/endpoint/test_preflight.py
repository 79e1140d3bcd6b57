"""The pre-flight check against a real scripted endpoint, a closed port, and a shared deployment's URL policy."""
from __future__ import annotations

import socket

import pytest
from peers import SENTINEL_KEY, settings_for

from evalui.endpoint.preflight import PreflightError, check_endpoint
from evalui.endpoint.settings import EndpointSettings
from evalui.endpoint.url_policy import RefusedURL, allow_server_host
from support.openai_peer import Reply, ScriptedPeer, completion, error


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens once the probe is closed


def test_a_live_endpoint_answers_one_tiny_request():
    with ScriptedPeer(lambda body, n: completion("OK"), probes="script") as peer:
        message = check_endpoint(settings_for(peer))
        [request] = peer.chat_requests()
    host = peer.base_url.split("//")[1].split("/")[0]
    assert message.startswith(f"OK: {host} answered in ") and message.endswith(" s")
    assert request.body["max_tokens"] == 1 and request.body["model"] == "scripted-model"
    assert request.authorization == f"Bearer {SENTINEL_KEY}"


def test_no_key_sends_no_authorization():
    with ScriptedPeer(lambda body, n: completion("OK"), probes="script") as peer:
        check_endpoint(settings_for(peer, api_key=""))
        assert peer.chat_requests()[0].authorization == ""


def dripping_body() -> Reply:
    reply = completion("x" * 400)
    reply.drip_s = 0.2  # minutes for the whole body, a byte at a time: no single read ever waits 1 s
    return reply


@pytest.mark.parametrize("reply", [Reply(body={"choices": []}, delay_s=4), dripping_body()], ids=["silent", "dripping"])
def test_a_silent_endpoint_times_out_within_the_deadline(reply):
    # One deadline over the whole exchange: a check that waited for the answer would get one it
    # cannot use ("not with an OpenAI-compatible chat completion"), not this timeout.
    with ScriptedPeer(lambda body, n: reply, probes="script") as peer:
        with pytest.raises(PreflightError, match=r"did not answer within 1 s") as caught:
            check_endpoint(settings_for(peer), timeout_s=1.0)
    assert caught.value.kind == "timeout"


@pytest.mark.parametrize("reply, expected", [
    (error(401, f"Incorrect API key provided: {SENTINEL_KEY}"), "HTTP 401 .*missing or wrong API key"),
    (error(404, "The model `scripted-model` does not exist"), "model 'scripted-model' not found"),
    (error(404, "no route"), "HTTP 404 at .*/chat/completions: is the base URL right"),
    (error(503, "overloaded"), "HTTP 503 .*overloaded"),
    (Reply(body="<html>hello</html>"), "not with an OpenAI-compatible chat completion"),
    (Reply(body={"result": "ok"}), "not with an OpenAI-compatible chat completion"),
    (Reply(status=302, body="", headers={"location": "https://elsewhere.example/v1?key=abcdef"}),
     r"redirects \(HTTP 302\) to https://elsewhere.example/v1\?key=\[redacted\]"),
])
def test_replies_a_run_cannot_use_get_one_message_without_the_key(reply, expected):
    with ScriptedPeer(lambda body, n: reply, probes="script") as peer:
        with pytest.raises(PreflightError, match=expected) as caught:
            check_endpoint(settings_for(peer))
        assert len(peer.chat_requests()) == 1  # no retries, and a redirect is not followed
    assert SENTINEL_KEY not in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_rate_limited_endpoint_passes():
    with ScriptedPeer(lambda body, n: error(429, "slow down"), probes="script") as peer:
        assert "rate limited" in check_endpoint(settings_for(peer))


def test_invalid_and_private_urls_are_refused_before_any_request(monkeypatch):
    with pytest.raises(RefusedURL, match="http:// or https://"):
        check_endpoint(EndpointSettings(base_url="ftp://example.com/v1", model="m"))
    with ScriptedPeer(lambda body, n: completion("OK"), probes="script") as peer:
        monkeypatch.setenv("EVALUI_SHARED", "1")
        with pytest.raises(RefusedURL, match="loopback"):
            check_endpoint(settings_for(peer))
        assert peer.chat_requests() == []
        # The server's own endpoint (the offline local model) is allowed by name.
        allow_server_host(peer.base_url.split("//")[1].split("/")[0])
        assert check_endpoint(settings_for(peer)).startswith("OK: ")


def test_a_closed_port_is_one_clear_message_at_once():
    # "At once": refused, not retried until the 5 s deadline (which would say "did not answer").
    settings = EndpointSettings(base_url=f"http://127.0.0.1:{closed_port()}/v1", model="m", api_key=SENTINEL_KEY)
    with pytest.raises(PreflightError, match="connection refused") as caught:
        check_endpoint(settings)
    assert SENTINEL_KEY not in str(caught.value)
    assert caught.value.kind == "refused"  # the page says the same in the visitor's language


def test_a_url_with_credentials_is_shown_redacted():
    port = closed_port()
    settings = EndpointSettings(base_url=f"http://user:hunter22@127.0.0.1:{port}/v1?token=secret99", model="m")
    with pytest.raises(PreflightError) as caught:
        check_endpoint(settings)
    assert "hunter22" not in str(caught.value) and "secret99" not in str(caught.value)
