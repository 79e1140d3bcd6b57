"""Hugging Face Space readiness: front matter, a torch-free requirements.txt, OAuth only on a Space,
launch options, and the optional allow-list."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.openai_peer import ScriptedPeer, completion

ROOT = Path(__file__).resolve().parents[3]
SPACE_ENV = {"SPACE_ID": "someone/evalui", "SYSTEM": "spaces", "OAUTH_CLIENT_ID": "client",
             "OAUTH_CLIENT_SECRET": "secret", "OAUTH_SCOPES": "openid profile",
             "OPENID_PROVIDER_URL": "https://huggingface.co"}


def test_requirements_resolve_without_torch():
    # A full resolution for Python 3.11 on Linux, as the Space's build does it; uv (which `make setup`
    # installs) resolves the same declared requirements as pip in seconds, where pip took half a minute.
    uv = Path(sys.executable).parent / "uv"
    done = subprocess.run([str(uv), "pip", "compile", "--quiet", "--no-header", "--no-annotate", "--python-version",
                           "3.11", "--python-platform", "x86_64-manylinux_2_28", "requirements.txt"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    names = {line.split("==")[0].strip().lower().replace("_", "-") for line in done.stdout.splitlines()
             if "==" in line}
    assert "gradio" in names and "openai" in names and "tree-sitter" in names
    # faiss-cpu is in: BFCL's memory_vector backend imports it, and it brings no torch (the encoder is evalui's own).
    heavy = {n for n in names if "torch" in n or n.startswith("nvidia-") or n == "sentence-transformers"}
    assert not heavy


COUNT_LOGIN_BUTTONS = ("import app, gradio as gr; demo = app.build_demo(); "
                       "print(sum(isinstance(b, gr.LoginButton) for b in demo.blocks.values()))")


def test_no_login_button_off_a_space(monkeypatch, tmp_path):
    # In this process: off a Space nothing of Gradio's OAuth is read, whenever Gradio was imported.
    for name in SPACE_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    import gradio as gr

    import app

    assert not any(isinstance(block, gr.LoginButton) for block in app.build_demo().blocks.values())


def test_a_login_button_on_a_space(tmp_path):
    # Gradio reads the OAuth variables when it is imported, so this case gets its own process.
    env = {k: v for k, v in os.environ.items() if k not in SPACE_ENV and k != "HF_TOKEN"}
    env.update(SPACE_ENV, EVALUI_DATA_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", COUNT_LOGIN_BUTTONS], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "1"


def test_launch_options_are_narrow(monkeypatch, tmp_path):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "bucket"))
    import app

    options = app.launch_options()
    assert options["run_history"] is False
    assert options["allowed_paths"] == [str(tmp_path / "bucket" / "runs"), str(tmp_path / "bucket" / "uploads")]
    assert options["max_file_size"] == "50mb"


def outcome(job) -> str:
    """What a call said: its outputs, or the error it raised (a refusal may be either)."""
    try:
        return json.dumps(job.result(timeout=120), default=str)
    except Exception as exc:  # gradio_client raises AppError for a gr.Error
        return str(exc)


@pytest.mark.parametrize("allowed, expect_ok", [("", True), ("ana,cy", True), ("bob", False)])
def test_allow_list_with_password_auth(monkeypatch, tmp_path, allowed, expect_ok):
    from app_client import app_client, launch_demo

    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("EVALUI_ALLOWED_USERS", allowed)
    import app

    demo = app.build_demo()
    demo.queue()
    _, url, _ = launch_demo(demo, auth=("ana", "pw"))
    peer = ScriptedPeer(lambda body, n: completion("FINAL ANSWER: 1")).start()
    # An allow-list makes the deployment shared, where loopback endpoints are refused unless named.
    monkeypatch.setenv("EVALUI_ALLOWED_HOSTS", peer.base_url.split("/")[2])
    try:
        client = app_client(url, auth=("ana", "pw"), verbose=False)
        job = client.submit(*gaia_start_inputs(peer.base_url), api_name="/gaia_start")
        answer = outcome(job)
        assert ("gaia-m-" in answer) == expect_ok and ("Only allowed users" in answer) == (not expect_ok)
        # The endpoint is reached only for an allowed user: its check at once, the run's requests after.
        assert bool(peer.probes or peer.chat_requests()) == expect_ok
    finally:
        demo.close()
        peer.stop()


def gaia_start_inputs(base_url: str) -> tuple:
    """/gaia_start's inputs in order: endpoint (URL, model, key, temperature, max tokens, timeout),
    source, split, level, folder, upload, solver, limit, concurrency, tools, seconds per program,
    max steps, run id (epochs, budget and the prices per million tokens, last, are left out)."""
    return (base_url, "m", "", 0.0, 16, 5, "Bundled sample", "validation", "1", "", None,
            "The endpoint above", 1, 1, [], 30, 12, "")


def test_password_auth_marks_the_deployment_shared(tmp_path):
    """`python app.py --auth` lets other people reach the server, so it must not call loopback URLs for them."""
    import socket
    from urllib.request import urlopen

    from app_client import app_client
    from waiting import wait_for

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items()
           if k not in ("SPACE_ID", "EVALUI_ALLOWED_USERS", "EVALUI_SHARED", "EVALUI_ALLOWED_HOSTS")}
    env.update(EVALUI_DATA_DIR=str(tmp_path), HF_HUB_OFFLINE="1")
    server = subprocess.Popen([sys.executable, "app.py", "--auth", "ana:pw", "--port", str(port)], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peer = ScriptedPeer(lambda body, n: completion("FINAL ANSWER: 1")).start()
    try:
        def up() -> bool:
            try:
                urlopen(f"http://127.0.0.1:{port}/", timeout=1).close()
                return True
            except OSError:
                return server.poll() is not None  # it exited: said below, instead of waiting on

        wait_for(up, "app.py --auth never answered")
        assert server.poll() is None, f"app.py --auth exited with {server.returncode}"
        client = app_client(f"http://127.0.0.1:{port}/", auth=("ana", "pw"), verbose=False)
        job = client.submit(*gaia_start_inputs(peer.base_url), api_name="/gaia_start")
        assert "refused" in outcome(job)
        assert peer.chat_requests() == []
    finally:
        server.terminate()
        server.wait(30)
        peer.stop()


def test_launch_options_put_the_guards_in_front_of_every_route(monkeypatch, tmp_path):
    """The body cap, the stored-file gate and the security headers are the app's middleware, and the
    page is served by the Python app that has them (not by server-side rendering in Node)."""
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    import app
    from evalui.ui.web.guard import BodyCap, SecurityHeaders, StoredFileGate

    options = app.launch_options()
    assert options["ssr_mode"] is False
    assert [m.cls for m in options["app_kwargs"]["middleware"]] == [SecurityHeaders, BodyCap, StoredFileGate]


def test_the_app_builds_the_install_caches_at_start_when_make_did_not(tmp_path):
    """A Space installs without `make`: its start, not its first BFCL run, works out the registry
    snapshot and the category sizes (issue 41)."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), EVALUI_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, "-c", "import app; app.warm_up_checker()"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    kept = sorted(path.name.rsplit("-", 1)[0] for path in (tmp_path / "cache" / "evalui").glob("*.json"))
    assert kept == ["bfcl-category-sizes", "bfcl-model-registry"]
