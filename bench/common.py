"""Helpers shared by the benchmarks: a scripted endpoint in its own process, and store queries."""

from __future__ import annotations

import multiprocessing
import signal
import socket
import sqlite3
import sys
from pathlib import Path

# The scripted peers and oracles live with the tests (tests/support/), outside the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.openai_peer import ScriptedPeer  # noqa: E402


def gold_script(latency_s: float = 0.1):
    """A script that answers simple_python questions with their gold calls after ``latency_s``."""
    from support.bfcl_oracle import BfclOracle

    oracle = BfclOracle(["simple_python"])

    def script(body, n):
        reply = oracle.gold_reply(body)
        reply.delay_s = latency_s
        return reply

    return script


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serve(make_script, port, ready, log_path):
    peer = ScriptedPeer(make_script(), port=port).start()
    ready.set()

    def dump(*_):
        if log_path:
            Path(log_path).write_text("\n".join(f"{r.received_at}\t{_question(r.body)}" for r in peer.chat_requests()))
        peer.stop()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, dump)
    signal.pause()


def _question(body) -> str:
    messages = body.get("messages", [])
    text = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    return text.replace("\t", " ").replace("\n", " ")


class PeerProcess:
    """A scripted endpoint in a forked process (as a real server would be, outside our GIL).

    ``make_script`` runs in the child and returns the script. On stop, the questions it was asked
    are written to ``log_path``, one request a line with its arrival time.
    """

    def __init__(self, make_script, log_path: Path | None = None):
        self.port = free_port()
        self.log_path = log_path
        ready = multiprocessing.Event()
        self.process = multiprocessing.get_context("fork").Process(
            target=_serve, args=(make_script, self.port, ready, str(log_path) if log_path else None), daemon=True)
        self.process.start()
        ready.wait(120)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> list[tuple[float, str]]:
        """Stop the server; returns (received_at, question) for every request it was sent."""
        self.process.terminate()
        self.process.join(30)
        if self.log_path and self.log_path.exists():
            rows = [line.split("\t", 1) for line in self.log_path.read_text().splitlines() if line]
            return [(float(at), question) for at, question in rows]
        return []


def finished_ids(database: Path, exp_id: str) -> set[str]:
    try:
        with sqlite3.connect(database, timeout=5) as db:
            return {row[0] for row in db.execute(
                "SELECT sample_id FROM samples WHERE exp_id = ? AND stage != 'init'", (exp_id,))}
    except sqlite3.OperationalError:  # the run has not created its tables yet
        return set()
