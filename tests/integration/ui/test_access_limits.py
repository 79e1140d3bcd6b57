"""Limits that hold before any handler's own checks, through the real app over HTTP: request bodies
are capped before they are parsed or queued, and one visitor may have only so many runs going."""
from __future__ import annotations

import http.client
import json

import httpx
import pytest
from app_client import app_client
from peers import Held
from waiting import wait_for

from evalui.ui.web import visitor_runs
from evalui.ui.web.guard import MAX_BODY_BYTES
from support.openai_peer import ScriptedPeer, completion

BIG = 60 * 2**20


def post(url: str, path: str, size: int, *, chunked: bool = False) -> tuple[int, bytes, int]:
    """(status, body, bytes sent) of a POST of ``size`` bytes, sent in 1 MB pieces until the server stops reading."""
    host, port = httpx.URL(url).host, httpx.URL(url).port
    connection = http.client.HTTPConnection(host, port, timeout=60)
    connection.putrequest("POST", path)
    connection.putheader("Content-Type", "application/json")
    connection.putheader(*(("Transfer-Encoding", "chunked") if chunked else ("Content-Length", str(size))))
    connection.endheaders()
    piece, sent = b" " * 2**20, 0
    try:
        while sent < size:
            data = piece[: size - sent]
            connection.send(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
            sent += len(data)
        if chunked:
            connection.send(b"0\r\n\r\n")
    except OSError:  # the server answered and closed while the body was still coming
        pass
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body, sent


@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "streamed"])
def test_a_60_mb_body_to_the_queue_gets_413_and_the_server_keeps_serving(app_url, chunked):
    status, body, sent = post(app_url, "/gradio_api/queue/join", BIG, chunked=chunked)
    assert status == 413, body[:200]
    assert str(MAX_BODY_BYTES) in json.loads(body)["detail"]
    assert sent < BIG  # refused long before the whole body was read
    # The server goes on: a small body reaches the route (and is judged there), the API answers.
    assert post(app_url, "/gradio_api/queue/join", 10)[0] == 422
    assert json.dumps(app_client(app_url, verbose=False).predict(api_name="/runs_list"), default=str)


def test_an_upload_has_its_own_larger_cap(app_url):
    files = {"files": ("a.json", b"[" + b" " * (3 * 2**20) + b"]", "application/json")}
    answer = httpx.post(app_url + "gradio_api/upload", files=files, timeout=60)
    assert answer.status_code == 200, answer.text[:200]  # 3 MB: over the JSON cap, well under the upload cap
    assert post(app_url, "/gradio_api/upload", BIG)[0] == 413


def bfcl_start(peer, exp_id: str) -> tuple:
    """/bfcl_start's inputs: endpoint (URL, model, key, temperature, max tokens, timeout), categories,
    limit, mode, concurrency, run id."""
    return (peer.base_url, "m", "", 0.0, 64, 30, ["simple_python"], 1, "prompt", 1, exp_id)


def status_of(outputs) -> str:
    """What the start said: its status line and log (the outputs the API returns, as text)."""
    return json.dumps(outputs, default=str, ensure_ascii=False)


def test_a_visitor_may_have_two_runs_going_and_is_told_at_the_third(app_url, monkeypatch):
    monkeypatch.setenv(visitor_runs.MAX_RUNS_ENV, "2")
    answer = completion("[calculate_triangle_area(base=10, height=5)]")
    held = Held(answer)

    def script(body, n):  # the endpoint check answers at once; the runs' requests wait for release()
        return answer if body.get("max_tokens") == 1 else held(body, n)

    with held, ScriptedPeer(script) as peer:
        try:
            one = app_client(app_url, verbose=False)
            first, second = (one.predict(*bfcl_start(peer, f"cap-{i}"), api_name="/bfcl_start") for i in (1, 2))
            assert "cap-1" in status_of(first) and "cap-2" in status_of(second)
            third = one.predict(*bfcl_start(peer, "cap-3"), api_name="/bfcl_start")
            assert "You already have 2 runs going" in status_of(third)
            # Another visitor is not held by the first one's runs.
            other = app_client(app_url, verbose=False).predict(*bfcl_start(peer, "cap-4"), api_name="/bfcl_start")
            assert "cap-4" in status_of(other) and "already have" not in status_of(other)
        finally:
            held.release()
        from evalui.ui.run_view import is_running

        wait_for(lambda: not any(is_running(f"cap-{i}") for i in (1, 2, 4)), "the released runs never ended")
        again = one.predict(*bfcl_start(peer, "cap-3"), api_name="/bfcl_start")
        assert "cap-3" in status_of(again) and "already have" not in status_of(again)
        # Left running, it would export into the next test's data folder (EVALUI_DATA_DIR is read then).
        wait_for(lambda: not is_running("cap-3"), "the last run never ended")
