"""An unreachable Hugging Face Hub is reported at once, and bundled or cached data used where it exists.

Two kinds of unreachable: a closed port (refused at once) and a server that accepts connections
and never answers (what a black-holed route looks like after the handshake).
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from fake_hub import FakeHub

from evalui import hub
from evalui.benchmarks.gaia import data


class SilentServer:
    """Accepts TCP connections on 127.0.0.1, reads each one's request line, and never sends a byte."""

    def __init__(self):
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._held: list[socket.socket] = []
        self.request_lines: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    def _accept(self):
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:  # closed by __exit__
                return
            self._held.append(connection)
            threading.Thread(target=self._read_request_line, args=(connection,), daemon=True).start()

    def _read_request_line(self, connection: socket.socket) -> None:
        try:
            with connection.makefile("rb") as stream:
                self.request_lines.append(stream.readline(1000).decode("latin-1").strip())
        except (OSError, ValueError):  # closed by __exit__ before the client said anything
            pass

    def __enter__(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._socket.close()
        for connection in self._held:
            connection.close()


PROBE = "HEAD / HTTP/1.1"


SAMPLE = data.BUNDLED_SAMPLE / "2023" / "validation"


class ClosedPort:
    """Nothing listens: every connection is refused at once, and nothing can be recorded."""

    def __init__(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.url = f"http://127.0.0.1:{probe.getsockname()[1]}"
        self.request_lines = None


@pytest.fixture(params=["silent", "closed"])
def unreachable_hub(request):
    if request.param == "closed":
        yield ClosedPort()
        return
    with SilentServer() as server:
        yield server


# The tests' silent Hub is given a 1 s probe; the 3 s default is checked once, below.
SHORT_PROBE = {hub.HUB_PROBE_ENV: "1"}


def asked_only_the_probe(hub) -> None:
    """What "at once" means: after the probe, nothing asks the Hub again (huggingface_hub and
    datasets would wait on a silent Hub for minutes). A closed port records nothing; it refuses at once."""
    if hub.request_lines is not None:
        assert hub.request_lines and set(hub.request_lines) == {PROBE}, hub.request_lines


def run_python(code: str, hub_url: str, tmp_path: Path, **env) -> subprocess.CompletedProcess:
    # A fresh interpreter: huggingface_hub and datasets read HF_ENDPOINT when first imported.
    environment = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")}
    environment.update(HF_ENDPOINT=hub_url, EVALUI_DATA_DIR=str(tmp_path), **SHORT_PROBE, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=environment)


AIME = """
import json
from evalui.benchmarks.aime import references
expected, _ = references.{loader}("bundled")
try:
    problems, source = references.{loader}("{source}", None)
    outcome = {{"ids": [p.problem_id for p in problems], "source": source}}
except RuntimeError as exc:
    outcome = {{"error": str(exc)}}
outcome.update(expected=[p.problem_id for p in expected])
print(json.dumps(outcome))
"""


@pytest.mark.parametrize("loader", ["reference_pool", "aime25"])
def test_aime_falls_back_to_the_bundled_sample_at_once(unreachable_hub, tmp_path, loader):
    done = run_python(AIME.format(loader=loader, source="auto"), unreachable_hub.url, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    outcome = json.loads(done.stdout.splitlines()[-1])
    asked_only_the_probe(unreachable_hub)
    assert outcome["ids"] == outcome["expected"] and outcome["ids"]
    assert outcome["source"].startswith("bundled sample (offline stand-in for ")
    assert f"The Hugging Face Hub cannot be reached ({unreachable_hub.url}: " in outcome["source"]
    assert outcome["source"].endswith("; using the bundled sample")
    assert "The Hugging Face Hub cannot be reached" in done.stderr  # the log says it too


def test_aime_from_the_hub_only_fails_at_once(unreachable_hub, tmp_path):
    done = run_python(AIME.format(loader="reference_pool", source="hub"), unreachable_hub.url, tmp_path)
    outcome = json.loads(done.stdout.splitlines()[-1])
    asked_only_the_probe(unreachable_hub)
    assert outcome["error"].startswith(f"The Hugging Face Hub cannot be reached ({unreachable_hub.url}: ")


GAIA = """
import json
from evalui.benchmarks.gaia.data import load_hf
from evalui.errors import InputError
try:
    outcome = {"ids": [q.task_id for q in load_hf("validation")]}
except InputError as exc:
    outcome = {"error": str(exc)}
print(json.dumps(outcome))
"""


def test_gaia_without_a_cached_copy_says_the_hub_is_unreachable(unreachable_hub, tmp_path):
    done = run_python(GAIA, unreachable_hub.url, tmp_path, HF_TOKEN="hf_test")
    outcome = json.loads(done.stdout.splitlines()[-1])
    asked_only_the_probe(unreachable_hub)
    assert outcome["error"].startswith(f"The Hugging Face Hub cannot be reached ({unreachable_hub.url}: ")
    assert outcome["error"].endswith("), and GAIA validation is not cached yet; use a local folder, "
                                     "a questions file or the bundled sample")


def test_gaia_uses_its_cached_copy_when_the_hub_is_unreachable(unreachable_hub, tmp_path):
    shutil.copytree(SAMPLE, tmp_path / "cache" / "gaia" / "2023" / "validation")
    done = run_python(GAIA, unreachable_hub.url, tmp_path, HF_TOKEN="hf_test")
    outcome = json.loads(done.stdout.splitlines()[-1])
    asked_only_the_probe(unreachable_hub)
    assert outcome["ids"] == [q.task_id for q in data.load_folder(tmp_path / "cache" / "gaia", "validation")]
    assert "The Hugging Face Hub cannot be reached" in done.stderr and "using the copy of GAIA validation" in done.stderr


def test_gaia_run_command_says_so_in_one_line(tmp_path):
    with SilentServer() as hub:
        done = subprocess.run(
            [sys.executable, "-m", "evalui", "gaia", "run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
            capture_output=True, text=True, timeout=600,
            env={**os.environ, "HF_ENDPOINT": hub.url, "HF_TOKEN": "hf_test", "EVALUI_DATA_DIR": str(tmp_path),
                 **SHORT_PROBE})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("evalui: error: The Hugging Face Hub cannot be reached")
    asked_only_the_probe(hub)


def test_the_probe_tells_a_silent_hub_from_a_live_one(monkeypatch):
    with SilentServer() as silent:
        monkeypatch.setenv("HF_ENDPOINT", silent.url)
        # The probe's own 3 s bound, not its socket's longer timeout ("timed out"), gave this answer.
        message = hub.hub_unreachable()
        assert message == f"The Hugging Face Hub cannot be reached ({silent.url}: no answer within 3 s)"
        assert silent.request_lines == [PROBE]
        monkeypatch.setenv(hub.HUB_PROBE_ENV, "0.5")  # an operator's bound replaces the default
        assert hub.hub_unreachable().endswith("no answer within 0.5 s)")
    with FakeHub(data.HF_REPO, gated=True) as live:  # an error status is still an answer
        monkeypatch.setenv("HF_ENDPOINT", live.url)
        assert hub.hub_unreachable() is None
