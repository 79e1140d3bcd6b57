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

from evalui.endpoint.url_policy import RefusedURL, check_web_address

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
