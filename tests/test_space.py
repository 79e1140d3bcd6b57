"""Hugging Face Space readiness: front matter, a torch-free requirements.txt, OAuth only on a Space,
launch options, and the optional allow-list."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import gradio as gr
import pytest

from evalui.testing.openai_peer import ScriptedPeer, completion

ROOT = Path(__file__).resolve().parents[1]
SPACE_ENV = {"SPACE_ID": "someone/evalui", "SYSTEM": "spaces", "OAUTH_CLIENT_ID": "client",
             "OAUTH_CLIENT_SECRET": "secret", "OAUTH_SCOPES": "openid profile",
             "OPENID_PROVIDER_URL": "https://huggingface.co"}


def front_matter() -> dict:
    text = (ROOT / "README.md").read_text()
    block = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL).group(1)
    return {k.strip(): v.strip().strip('"') for k, v in (line.split(":", 1) for line in block.splitlines())}


def test_front_matter_matches_the_pins():
    meta = front_matter()
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py" and meta["python_version"] == "3.11"
    assert meta["hf_oauth"] == "true"
    assert meta["sdk_version"] == gr.__version__
    assert f"gradio[oauth]=={meta['sdk_version']}" in (ROOT / "requirements.txt").read_text()
    assert f"gradio[oauth]=={meta['sdk_version']}" in (ROOT / "pyproject.toml").read_text()


def test_requirements_resolve_without_torch(tmp_path):
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                           "--report", str(report), "-r", "requirements.txt"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    names = {item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]}
    assert "gradio" in names and "openai" in names and "tree-sitter" in names
    heavy = {n for n in names if "torch" in n or n.startswith("nvidia-") or n in ("sentence-transformers", "faiss-cpu")}
    assert not heavy


COUNT_LOGIN_BUTTONS = ("import app, gradio as gr; demo = app.build_demo(); "
                       "print(sum(isinstance(b, gr.LoginButton) for b in demo.blocks.values()))")


@pytest.mark.parametrize("on_space", [False, True], ids=["off-space", "on-space"])
def test_login_button_only_on_a_space(tmp_path, on_space):
    # Gradio reads the OAuth variables when it is imported, so each case gets its own process.
    env = {k: v for k, v in os.environ.items() if k not in SPACE_ENV and k != "HF_TOKEN"}
    env["EVALUI_DATA_DIR"] = str(tmp_path)
    if on_space:
        env.update(SPACE_ENV)
    done = subprocess.run([sys.executable, "-c", COUNT_LOGIN_BUTTONS], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == ("1" if on_space else "0")


def test_launch_options_are_narrow(monkeypatch, tmp_path):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "bucket"))
    import app

    options = app.launch_options()
    assert options["run_history"] is False
    assert options["allowed_paths"] == [str(tmp_path / "bucket" / "runs"), str(tmp_path / "bucket" / "uploads")]
    assert options["max_file_size"] == "50mb"


@pytest.mark.parametrize("allowed, expect_ok", [("", True), ("ana,cy", True), ("bob", False)])
def test_allow_list_with_password_auth(monkeypatch, tmp_path, allowed, expect_ok):
    from gradio_client import Client

    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("EVALUI_ALLOWED_USERS", allowed)
    import app

    demo = app.build_demo()
    demo.queue()
    _, url, _ = demo.launch(prevent_thread_lock=True, quiet=True, auth=("ana", "pw"), **app.launch_options())
    peer = ScriptedPeer(lambda body, n: completion("FINAL ANSWER: 1")).start()
    try:
        client = Client(url, auth=("ana", "pw"), verbose=False)
        job = client.submit(peer.base_url, "m", "", 0.0, 16, 5, "Bundled sample", "validation", "1", "",
                            None, "The endpoint above", 1, 1, "", api_name="/gaia_start")
        if expect_ok:
            outputs = job.result(timeout=120)
            assert "gaia-m-" in outputs[0]
        else:
            with pytest.raises(Exception, match="Only allowed users"):
                job.result(timeout=120)
        assert len(peer.chat_requests()) == (1 if expect_ok else 0)
    finally:
        demo.close()
        peer.stop()
