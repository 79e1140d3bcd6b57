"""A fast scripted endpoint for throughput benchmarks: raw asyncio HTTP/1.1 with keep-alive.

The ScriptedPeer (a ThreadingHTTPServer: one thread per connection, a sleeping thread per
request) tops out around a couple of thousand requests a second, which is below what a client
can send at C = 64 against a 10 ms endpoint; the ceiling would then measure the peer. This one
answers from one event loop in its own process, with every gold reply encoded once at start, so
the client side is what is measured.

It records, per chat request, when the request was complete (arrival) and when its response was
written (done), on the monotonic clock that all processes share, for the in-flight figures.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import signal
import time
from pathlib import Path

from common import free_port

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.gold import fc_arguments, gold_calls, prompt_text
from evalui.benchmarks.bfcl.request import sanitise_name
from evalui.benchmarks.bfcl.scoring.single_turn import RELEVANCE_CATEGORIES, language_of
from support.bfcl_oracle import last_user_text
from support.openai_peer import completion

NOT_FOUND = b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"


def entry_key(question: str, tool_names) -> tuple[str, tuple[str, ...]]:
    # The question alone is not unique across categories; with the offered tools it is.
    return question, tuple(sorted(tool_names))


def body_key(body: dict) -> tuple[str, tuple[str, ...]]:
    names = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
    return entry_key(last_user_text(body), names)


def gold_completion(entry, fc: bool) -> dict:
    """The gold answer, as BfclOracle.gold_reply gives it, for one entry."""
    if entry.category in RELEVANCE_CATEGORIES:
        if "irrelevance" in entry.category or not entry.functions:
            return completion("None of the functions can answer this.").body
        calls = [(entry.functions[0]["name"], {})]
    else:
        calls = gold_calls(entry.possible_answer)
    language = language_of(entry.category)
    if fc:
        return completion(None, [(sanitise_name(n), fc_arguments(a, language)) for n, a in calls]).body
    return completion(prompt_text(calls, language)).body


def response_bytes(payload: dict) -> bytes:
    data = json.dumps(payload).encode()
    head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(data)}\r\n\r\n"
    return head.encode() + data


def gold_table(categories) -> dict:
    """(question, tool names) -> (entry id, FC response bytes); prompt-mode requests (no tools) too."""
    table = {}
    for category in categories:
        for entry in load_category(category):
            question = last_user_text({"messages": entry.user_messages()})
            names = [sanitise_name(f["name"]) for f in entry.functions]
            table.setdefault(entry_key(question, names), (entry.id, response_bytes(gold_completion(entry, True))))
            table.setdefault(entry_key(question, ()), (entry.id, response_bytes(gold_completion(entry, False))))
    return table


class _Server:
    def __init__(self, table: dict, latency_s: float):
        self.table, self.latency_s = table, latency_s
        self.log: list[tuple[float, float, str]] = []  # (arrival, done, entry id)
        self.loop = asyncio.get_running_loop()

    def handle(self, transport, head: bytes, body: bytes) -> None:
        arrival = time.monotonic()
        request_line = head.split(b"\r\n", 1)[0]
        if request_line.startswith(b"GET ") and b"/models" in request_line:
            transport.write(response_bytes({"object": "list", "data": [{"id": "bench", "object": "model"}]}))
            return
        if not request_line.startswith(b"POST ") or b"/chat/completions" not in request_line:
            transport.write(NOT_FOUND)
            return
        found = self.table.get(body_key(json.loads(body)))
        sample_id, data = found or ("?", response_bytes(completion("I do not know this question.").body))
        self.loop.call_later(self.latency_s, self.send, transport, data, arrival, sample_id)

    def send(self, transport, data: bytes, arrival: float, sample_id: str) -> None:
        if not transport.is_closing():
            transport.write(data)
            self.log.append((arrival, time.monotonic(), sample_id))


class _Connection(asyncio.Protocol):
    def __init__(self, server: _Server):
        self.server, self.buffer, self.transport = server, bytearray(), None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end])
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            if len(self.buffer) < end + 4 + length:
                return
            body = bytes(self.buffer[end + 4:end + 4 + length])
            del self.buffer[:end + 4 + length]
            self.server.handle(self.transport, head, body)


def _serve(categories, latency_s, port, ready, log_path) -> None:
    table = gold_table(categories)

    async def main() -> None:
        server = _Server(table, latency_s)
        listener = await server.loop.create_server(lambda: _Connection(server), "127.0.0.1", port, backlog=1024)
        stopped = asyncio.Event()
        server.loop.add_signal_handler(signal.SIGTERM, stopped.set)
        ready.set()
        await stopped.wait()
        listener.close()
        Path(log_path).write_text("".join(f"{a}\t{d}\t{s}\n" for a, d, s in server.log))

    asyncio.run(main())


class FastPeer:
    """The gold endpoint in a forked process; ``stop()`` returns [(arrival, done, sample id)]."""

    def __init__(self, categories, latency_s: float, log_path: Path):
        self.port, self.log_path = free_port(), Path(log_path)
        ready = multiprocessing.Event()
        self.process = multiprocessing.get_context("fork").Process(
            target=_serve, args=(list(categories), latency_s, self.port, ready, str(log_path)), daemon=True)
        self.process.start()
        if not ready.wait(180):
            raise RuntimeError("the benchmark peer did not start")

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> list[tuple[float, float, str]]:
        self.process.terminate()
        self.process.join(30)
        rows = [line.split("\t") for line in self.log_path.read_text().splitlines() if line]
        return [(float(a), float(d), s) for a, d, s in rows]


def in_flight(log, start: float = float("-inf"), end: float = float("inf")) -> tuple[int, float]:
    """(max, time-weighted mean) requests held by the peer, over the span of the benchmark's requests
    that arrived in [start, end]."""
    # "?": a request the peer has no gold answer for (the command's endpoint check before its run).
    rows = [(a, d) for a, d, sample_id in log if start <= a <= end and sample_id != "?"]
    if not rows:
        return 0, 0.0
    events = sorted([(a, 1) for a, _ in rows] + [(d, -1) for _, d in rows])
    level = peak = 0
    area, last = 0.0, events[0][0]
    for at, step in events:
        area += level * (at - last)
        level, last = level + step, at
        peak = max(peak, level)
    span = events[-1][0] - events[0][0]
    return peak, area / span if span > 0 else float(peak)
