"""A real HTTP server on 127.0.0.1 that speaks chat completions, answering as a script says.

The script is a function ``(request_body, call_number) -> Reply``. Every request is recorded,
so a test can count how often each sample was asked.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


@dataclass
class Reply:
    status: int = 200
    body: dict | str | None = None
    delay_s: float = 0.0
    headers: dict = field(default_factory=dict)
    # Seconds between single bytes of the body: a peer that drips keeps a per-read timeout happy forever.
    drip_s: float = 0.0
    raw: bytes | None = None  # the body's bytes as sent, instead of ``body`` (a compressed body)


def completion(text: str | None = "", tool_calls: list[tuple[str, str]] | None = None,
               prompt_tokens: int = 20, completion_tokens: int = 10, model: str = "scripted") -> Reply:
    """A well-formed chat completion with optional tool calls (name, arguments_json)."""
    message: dict = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
            for i, (name, arguments) in enumerate(tool_calls)
        ]
    return Reply(body={
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def error(status: int, message: str = "scripted error", retry_after: float | None = None) -> Reply:
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return Reply(status=status, body={"error": {"message": message, "type": "scripted"}}, headers=headers)


@dataclass
class RecordedRequest:
    number: int
    path: str
    body: dict
    authorization: str
    received_at: float


Script = Callable[[dict, int], Reply]


def _is_chat(path: str) -> bool:
    return urlsplit(path).path.rstrip("/").endswith("/chat/completions")


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A client that went away (timed out, or was killed) is part of the script, not a failure.
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def is_probe(body: dict) -> bool:
    """The endpoint check evalui sends before a run (evalui.endpoint.preflight)."""
    from evalui.endpoint.preflight import PROBE_MESSAGES

    return body.get("messages") == PROBE_MESSAGES and body.get("max_tokens") == 1


class ScriptedPeer:
    """``with ScriptedPeer(script) as peer: peer.base_url`` — a live endpoint for the block's duration.

    ``probes="answer"``: the peer itself answers evalui's endpoint check with "OK" and keeps it in
    ``probes``, apart from ``requests``, so a script and a count of requests see the run's own
    requests only. ``probes="script"``: the check goes to the script like any request."""

    def __init__(self, script: Script, host: str = "127.0.0.1", port: int = 0, probes: str = "answer"):
        self.script = script
        self.answers_probes = probes == "answer"
        self.probes: list[RecordedRequest] = []
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        peer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def setup(self):
                super().setup()
                # Headers and body go out in separate writes; without TCP_NODELAY, Nagle's
                # algorithm and the client's delayed ACK add ~40 ms to every response.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(Reply(body={"object": "list", "data": [{"id": "scripted", "object": "model"}]}))
                else:
                    self._send(error(404, "not found"))

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    self._send(error(400, "request body is not JSON"))
                    return
                if peer.answers_probes and _is_chat(self.path) and is_probe(body):
                    with peer._lock:
                        peer.probes.append(RecordedRequest(0, self.path, body, self.headers.get("authorization", ""),
                                                           time.time()))
                    self._send(completion("OK"))
                    return
                number = next(peer._numbers)
                with peer._lock:
                    peer.requests.append(RecordedRequest(number, self.path, body,
                                                         self.headers.get("authorization", ""), time.time()))
                if not _is_chat(self.path):
                    self._send(error(404, "not found"))
                    return
                try:
                    reply = peer.script(body, number)
                except Exception as exc:  # a broken script shows up as a 500, not a hung client
                    reply = error(500, f"script failed: {exc}")
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                self._send(reply)

            def _send(self, reply: Reply):
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body or {})
                data = reply.raw if reply.raw is not None else payload.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    if reply.drip_s:
                        self.wfile.flush()
                        for index in range(len(data)):
                            self.wfile.write(data[index:index + 1])
                            self.wfile.flush()
                            time.sleep(reply.drip_s)
                    else:
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout); nothing to tell it

        self._server = _QuietServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> ScriptedPeer:
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="scripted-peer", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ScriptedPeer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if _is_chat(r.path)]


# Helpers for scripting an agent: what the conversation so far holds ---------------------------

def first_user_text(body: dict) -> str:
    """The task as the client first asked it (text part of the first user message)."""
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else " ".join(
                p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def tool_outputs(body: dict) -> list[str]:
    """The tool results sent back so far, oldest first: native ``tool`` messages, or the text
    protocol's ``<tool_result>`` blocks inside user messages."""
    import re

    outputs = []
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") == "tool":
            outputs.append(content if isinstance(content, str) else json.dumps(content))
        elif message.get("role") == "user" and isinstance(content, str):
            outputs.extend(re.findall(r"<tool_result[^>]*>\n?(.*?)\n?</tool_result>", content, re.DOTALL))
    return outputs


def tool_call_text(name: str, arguments: dict) -> str:
    """A reply that calls a tool in the plain-text protocol."""
    return f'<tool_call>{json.dumps({"name": name, "arguments": arguments})}</tool_call>'
