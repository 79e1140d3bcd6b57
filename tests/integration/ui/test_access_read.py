"""The read policy on a shared deployment, through the real app's HTTP routes: with an allow-list,
anonymous visitors get nothing stored (runs, reports, downloads, generated files) from any endpoint
or file URL unless EVALUI_PUBLIC_READ=1; an allowed user reads as before; and nothing an
anonymous visitor can fetch names the server's default base URL or its paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from app_client import app_client, launch_demo
from peers import SENTINEL_KEY

from integration.review.test_verification import write_problems
from integration.ui.test_access import (
    GAIA_METADATA,
    REFUSAL,
    arguments,
    data_snapshot,
    refusal_of,
)
from support.openai_peer import ScriptedPeer, completion

SERVER_BASE_URL = "http://10.213.54.7:8123/v1"  # the operator's endpoint: never contacted, never shown


@pytest.fixture()
def stored(monkeypatch, tmp_path):
    """A data folder with a finished GAIA run and a generated AIME file; the server has its own endpoint."""
    data = tmp_path / "data"
    for name in ("EVALUI_PUBLIC_READ", "SPACE_ID", "EVALUI_SHARED"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("EVALUI_DATA_DIR", str(data))
    monkeypatch.setenv("EVALUI_ALLOWED_USERS", "alice")
    monkeypatch.setenv("OPENAI_BASE_URL", SERVER_BASE_URL)
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL_KEY)
    with ScriptedPeer(lambda body, n: completion("FINAL ANSWER: 1")) as peer:
        env = {**os.environ, "EVALUI_ALLOWED_USERS": "", "HF_HUB_OFFLINE": "1"}
        done = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--sample", "--limit", "1", "--base-url",
                               peer.base_url, "--model", "m", "--exp-id", "stored-run"], env=env, capture_output=True,
                              text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    folder = data / "runs" / "gen"
    folder.mkdir(parents=True)
    generated = write_problems(folder, 2)
    return {"data": data, "generated": generated, "report": data / "runs" / "stored-run" / "report.md"}


@pytest.fixture()
def launch(stored):
    demos = []

    def start(auth=None) -> str:
        import app

        demo = app.build_demo()
        demo.queue()
        _, url, _ = launch_demo(demo, auth=auth)
        demos.append(demo)
        return url

    yield start
    for demo in demos:
        demo.close()


def file_url(url: str, path: Path) -> str:
    return f"{url}gradio_api/file={quote(str(path))}"


def stored_traces(stored) -> list[str]:
    """Strings that only stored data would put into an answer (never part of what the visitor sends)."""
    task_id = json.loads(GAIA_METADATA.read_text().splitlines()[0])["task_id"]
    return ["gen-0000", task_id, "GAIA evaluation report", "scripted", "report.md"]


def test_anonymous_visitors_get_nothing_stored_under_an_allow_list(stored, launch):
    url = launch()
    client = app_client(url, verbose=False)
    endpoints = client.view_api(return_format="dict", print_info=False)["named_endpoints"]
    before = data_snapshot(stored["data"])
    leaked, not_refused = {}, {}
    fixtures = {"peer": type("Peer", (), {"base_url": "http://127.0.0.1:9/v1"})(), **stored,
                "bfcl_results": stored["generated"], "gaia_submission": stored["generated"]}
    for name in sorted(endpoints):
        values = arguments(endpoints[name], fixtures)
        # Read-only endpoints are asked for the stored things by name.
        for index, parameter in enumerate(endpoints[name]["parameters"]):
            label = parameter["label"]
            if (label.get("key") if isinstance(label, dict) else label) in ("verify.file", "aime.file"):
                values[index] = str(stored["generated"])
        answer = refusal_of(client, name.lstrip("/"), values)
        # A run or file the page never listed is not even among the dropdown's choices: Gradio refuses it too.
        if REFUSAL not in answer and "is not in the list of choices: []" not in answer:
            not_refused[name] = answer[:300]
        if any(trace in answer for trace in stored_traces(stored)):
            leaked[name] = answer[:300]
    assert not not_refused, f"endpoints that answered an anonymous visitor: {not_refused}"
    assert not leaked, f"stored data in answers to an anonymous visitor: {leaked}"
    assert data_snapshot(stored["data"]) == before

    for path in (stored["report"], stored["generated"]):
        answer = httpx.get(file_url(url, path))
        assert answer.status_code == 403 and str(path) not in answer.text, (path, answer.status_code)


def test_the_page_and_api_info_name_no_server_path_or_base_url(stored, launch):
    import gradio

    url = launch()
    for route in ("", "config", "gradio_api/info"):
        text = httpx.get(url + route).text
        for secret in (SERVER_BASE_URL, "10.213.54.7", SENTINEL_KEY, str(stored["data"]), str(Path.cwd()),
                       str(Path(gradio.__file__).parent)):
            assert secret not in text, (route, secret)
    # The empty base URL box stands for the server's endpoint: the page says so without naming it.
    assert "endpoint.base_url_server" in httpx.get(url + "config").text


def test_public_read_lets_anonymous_visitors_read_but_not_act(stored, launch, monkeypatch):
    monkeypatch.setenv("EVALUI_PUBLIC_READ", "1")
    url = launch()
    client = app_client(url, verbose=False)
    assert "stored-run" in json.dumps(client.predict(api_name="/runs_list"), default=str)
    assert httpx.get(file_url(url, stored["report"])).status_code == 200
    assert REFUSAL in refusal_of(client, "runs_delete", [])
    assert (stored["data"] / "runs" / "stored-run").is_dir()


def test_an_allowed_user_reads_under_the_closed_policy(stored, launch):
    url = launch(auth=("alice", "pw"))
    client = app_client(url, auth=("alice", "pw"), verbose=False)
    assert "stored-run" in json.dumps(client.predict(api_name="/runs_list"), default=str)
    with httpx.Client() as session:
        assert session.post(url + "login", data={"username": "alice", "password": "pw"}).status_code in (200, 302, 303)
        assert session.get(file_url(url, stored["report"])).status_code == 200
