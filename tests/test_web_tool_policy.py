"""The GAIA web tool's own address policy and its deadline, against real servers on 127.0.0.1.

The endpoint allow-list (EVALUI_ALLOWED_HOSTS) lets a shared deployment talk to a model on a
private address; it must not let the model's web_fetch reach that network. Only
EVALUI_WEB_ALLOW_HOSTS opens a host to the web tool.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from peers import settings_for

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.run import execute_gaia_run, prepare_gaia_run
from evalui.benchmarks.gaia.spec import GaiaOptions
from evalui.benchmarks.gaia.tools.base import ToolContext
from evalui.benchmarks.gaia.tools.web import HttpWebBackend, web_tools
from evalui.engine.url_policy import RefusedURL, check_web_address
from evalui.sandbox.base import Limits
from evalui.testing.openai_peer import ScriptedPeer, completion, first_user_text, tool_outputs

pytestmark = pytest.mark.unit

SECRET = "the admin page of a private service"


class WebServer:
    """A private web service: /admin, a redirect to another name for it, and two slow drips."""

    def __init__(self):
        self.paths: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                server.paths.append(self.path)
                try:
                    self._answer()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client cut the drip: that is the point

            def _answer(self):
                port = server.port
                if self.path == "/admin":
                    body = f"<html><body><p>{SECRET}</p></body></html>".encode()
                    self.send_response(200)
                    self.send_header("content-type", "text/html")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif self.path.startswith("/search?"):
                    body = json.dumps({"results": [{"title": "GAIA", "url": "https://example.org/gaia",
                                                    "content": "a benchmark"}]}).encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif self.path == "/hop":
                    self.send_response(302)
                    self.send_header("location", f"http://localhost:{port}/admin")
                    self.send_header("content-length", "0")
                    self.end_headers()
                elif self.path == "/drip":  # headers at once, then one byte of the body every second
                    self.send_response(200)
                    self.send_header("content-type", "text/plain")
                    self.send_header("content-length", "600")
                    self.end_headers()
                    self._drip(b"x" * 600)
                elif self.path == "/drip-headers":  # even the status line comes a byte at a time
                    self._drip(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")

            def _drip(self, data: bytes):
                for index in range(len(data)):
                    self.wfile.write(data[index:index + 1])
                    self.wfile.flush()
                    time.sleep(1.0)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]

    def __enter__(self):
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture()
def web_env(monkeypatch):
    """A shared deployment whose endpoint allow-list names 127.0.0.1, with evalui's own web backend."""
    monkeypatch.setenv("EVALUI_SHARED", "1")
    monkeypatch.setenv("EVALUI_ALLOWED_HOSTS", "127.0.0.1")
    monkeypatch.setenv("EVALUI_WEB_BACKEND", "http")
    for name in ("EVALUI_WEB_ALLOW_HOSTS", "EVALUI_WEB_FETCH_DEADLINE_S", "SPACE_ID", "EVALUI_ALLOWED_USERS"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def fetch_once(store, tmp_path, url: str) -> dict:
    """A GAIA run of one task whose model calls web_fetch(url) once, then answers; that call's result."""
    tmp_path.mkdir(exist_ok=True)
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([{"task_id": "web", "Question": "Read the page.", "Final answer": "x"}]))

    def script(body, n):
        if not tool_outputs(body):
            return completion("", tool_calls=[("web_fetch", json.dumps({"url": url}))])
        return completion("FINAL ANSWER: x")

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0, timeout_s=120)  # generous: a busy machine is not a failure
        exp_id = prepare_gaia_run(store, GaiaOptions(source=f"questions:{questions}", tools=["web"]),
                                  settings=settings, concurrency=1)
        summary = execute_gaia_run(store, exp_id, settings=settings)
        assert any("Read the page" in first_user_text(r.body) for r in peer.chat_requests())
    (sample,) = store.samples(exp_id)
    assert summary["errors"] == 0, sample.error
    return sample.trajectory[0]["tool_results"][0]


def test_the_endpoint_allow_list_does_not_open_the_web_tool_its_own_variable_does(store, tmp_path, web_env):
    with WebServer() as web:
        refused = fetch_once(store, tmp_path, web.url("/admin"))
        assert web.paths == []  # nothing was sent to the private service
        assert refused["error"] == "web_unavailable" and SECRET not in refused["content"]
        assert "public addresses only" in refused["content"] and "EVALUI_WEB_ALLOW_HOSTS" in refused["content"]

        web_env.setenv("EVALUI_WEB_ALLOW_HOSTS", f"127.0.0.1:{web.port}")
        allowed = fetch_once(store, tmp_path / "again", web.url("/admin"))
        assert allowed["error"] is None and SECRET in allowed["content"] and web.paths == ["/admin"]


def test_every_redirect_is_checked_again(web_env):
    fetch = web_tools()[1]
    context = ToolContext(GaiaQuestion("t", "q", "a", "1"), Limits(), web=HttpWebBackend(search_url=""))
    with WebServer() as web:
        web_env.setenv("EVALUI_WEB_ALLOW_HOSTS", f"127.0.0.1:{web.port}")
        hop = fetch.run({"url": web.url("/hop")}, context)  # to localhost, a name the operator did not give
        assert web.paths == ["/hop"]
        assert hop.error == "web_unavailable" and "'localhost' resolves to a loopback" in hop.content


def test_the_operators_search_engine_is_reachable_for_searches_only(web_env):
    search, fetch = web_tools()
    with WebServer() as web:
        backend = HttpWebBackend(search_url=web.url("/search?q={query}&format=json"))
        context = ToolContext(GaiaQuestion("t", "q", "a", "1"), Limits(), web=backend)
        found = search.run({"query": "gaia benchmark"}, context)
        assert found.error is None and "https://example.org/gaia" in found.content
        assert web.paths == ["/search?q=gaia+benchmark&format=json"]
        page = fetch.run({"url": web.url("/admin")}, context)  # the same host, asked for by the model
        assert page.error == "web_unavailable" and web.paths == ["/search?q=gaia+benchmark&format=json"]


def test_a_slow_drip_is_cut_by_the_overall_deadline(store, tmp_path, web_env):
    web_env.setenv("EVALUI_WEB_FETCH_DEADLINE_S", "3")
    with WebServer() as web:
        web_env.setenv("EVALUI_WEB_ALLOW_HOSTS", f"127.0.0.1:{web.port}")
        result = fetch_once(store, tmp_path, web.url("/drip"))
        assert result["error"] == "timeout"
        assert result["content"] == ("the page was not fetched: the download took longer than 3 s (the web tool's "
                                     "limit for one page, redirects included) and was cut off")
        fetch = web_tools()[1]
        context = ToolContext(GaiaQuestion("t", "q", "a", "1"), Limits(), web=HttpWebBackend(search_url=""))
        headers = fetch.run({"url": web.url("/drip-headers")}, context)
        assert headers.error == "timeout" and "took longer than 3 s" in headers.content


@pytest.mark.parametrize("address", ["127.0.0.1", "10.0.0.8", "172.16.5.4", "192.168.1.1", "169.254.169.254",
                                     "100.100.100.200", "0.0.0.0", "224.0.0.251", "240.0.0.1", "::1", "fe80::1",
                                     "fd00:ec2::254", "::ffff:127.0.0.1", "2002:a9fe:a9fe::1", "64:ff9b::a9fe:a9fe"])
def test_non_public_addresses_are_refused_whatever_the_endpoint_allow_list_says(address, web_env):
    web_env.setenv("EVALUI_ALLOWED_HOSTS", f"somewhere,{address}")
    with pytest.raises(RefusedURL, match="public addresses only"):
        check_web_address("somewhere", 80, [address])
    with pytest.raises(RefusedURL):
        check_web_address("somewhere", 80, ["93.184.215.14", address])  # one private answer is enough
    check_web_address("somewhere", 80, ["93.184.215.14", "2606:4700::1111"])
    web_env.setenv("EVALUI_WEB_ALLOW_HOSTS", "somewhere:80")
    check_web_address("somewhere", 80, [address])
    with pytest.raises(RefusedURL):
        check_web_address("somewhere", 8080, [address])  # host:port names that port only
