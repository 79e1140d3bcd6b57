"""The local model's thread count: the same BFCL prompt-mode requests to Gemma 3 270M served with 1
and with 2 llama.cpp threads, interleaved, on whatever else the machine is doing (the load average
is printed beside each figure: measure on a quiet machine).

Per server: the wall time of 8 requests (simple_python_0..7, bfcl's system prompt with the
function docs, about 460 prompt tokens each) with max_tokens 1 (mostly prompt processing) and with
max_tokens 64 at temperature 0.001 (prompt and generation). Asserts nothing.

Run: cd bench && ../.venv/bin/python local_threads.py [--repeats 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

REQUESTS = 8


def timed_requests(base_url: str, max_tokens: int) -> tuple[float, int, int]:
    from evalui.benchmarks.bfcl.data import load_category
    from evalui.benchmarks.bfcl.request import build_request
    from evalui.endpoint.client import ModelClient
    from evalui.endpoint.local.model import MODEL_NAME
    from evalui.endpoint.settings import EndpointSettings

    prompt = completion = 0
    with ModelClient(EndpointSettings(base_url=base_url, model=MODEL_NAME, timeout_s=900, max_retries=0)) as client:
        started = time.perf_counter()
        for entry in load_category("simple_python")[:REQUESTS]:
            request = build_request(entry, "prompt")
            reply = client.chat(request["messages"], max_tokens=max_tokens, extra_body=request["extra_body"])
            prompt, completion = prompt + reply.prompt_tokens, completion + reply.completion_tokens
        return time.perf_counter() - started, prompt, completion


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    from evalui.endpoint.local.model import LocalModelServer

    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            for threads in (1, 2):
                server = LocalModelServer(threads=threads, log_file=Path(tmp, f"llama-{threads}.log"))
                server.start()
                try:
                    timed_requests(server.base_url, 1)  # warm-up: first use of the weights
                    load = os.getloadavg()[0]
                    short, prompt, _ = timed_requests(server.base_url, 1)
                    long, _, generated = timed_requests(server.base_url, 64)
                finally:
                    server.stop()
                print(f"repeat {repeat + 1}  threads {threads}  load {load:4.2f}  "
                      f"max_tokens 1: {short:6.1f} s ({prompt / short:5.0f} prompt tokens/s)  "
                      f"max_tokens 64: {long:6.1f} s ({generated} tokens generated)", flush=True)


if __name__ == "__main__":
    main()
