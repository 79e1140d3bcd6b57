"""With EVALUI_ALLOWED_USERS set, an anonymous caller of the real app's API is refused by every
endpoint that does work, and nothing happens: no run, no request to a model, no file.

The endpoints come from the app's own API info, so a new one is covered the day it is added;
only the names in READ_ONLY are skipped, and each of those must still exist.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from app_client import app_client, launch_demo
from gradio_client import Client, handle_file

from evalui.benchmarks.gaia.data import BUNDLED_SAMPLE
from evalui.store.run_store import RunStore
from integration.review.test_verification import write_problems
from support.openai_peer import ScriptedPeer, completion

READ_ONLY = {
    *(f"{prefix}_{what}" for prefix in ("bfcl", "gaia", "aime_generate", "aime_judge", "aime_winrate", "runs")
      for what in ("runs", "show")),
    "aime_files", "aime_results", "runs_list", "runs_compare", "runs_compare_pair", "bfcl_turns", "gaia_transcript",
    "verify_files", "verify_open", "verify_previous", "verify_next", "verify_next_unverified", "verify_goto",
    "verify_as", "verify_disputed", "verify_adjudicate_show", "runs_cost_pareto",
    "runs_compare_bucket", "runs_compare_sample", "viewer_samples", "viewer_sample", "viewer_search",
}
REFUSAL = "Only allowed users may"
GAIA_METADATA = BUNDLED_SAMPLE / "2023" / "validation" / "metadata.jsonl"


def data_snapshot(folder: Path) -> dict[str, bytes]:
    # The store is SQLite: reading it may touch its files, so its content is checked through RunStore.
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith("evalui.sqlite")}


def scratch_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("evalui-*")}


@pytest.fixture()
def locked_app(monkeypatch, tmp_path):
    """The app with an allow-list, a stored GAIA run, a generated file and a model endpoint that counts requests."""
    data = tmp_path / "data"
    monkeypatch.setenv("EVALUI_DATA_DIR", str(data))
    monkeypatch.setenv("EVALUI_ALLOWED_USERS", "alice")
    # Reading is opened to everyone here, so the session can open what the work would act on;
    # tests/test_access_read.py checks the closed default.
    monkeypatch.setenv("EVALUI_PUBLIC_READ", "1")
    peer = ScriptedPeer(lambda body, n: completion("FINAL ANSWER: 1")).start()
    env = {**os.environ, "EVALUI_ALLOWED_USERS": "", "HF_HUB_OFFLINE": "1"}
    stored = subprocess.run([sys.executable, "-m", "evalui", "gaia", "run", "--sample", "--limit", "1", "--base-url",
                             peer.base_url, "--model", "m", "--exp-id", "stored-run"], env=env, capture_output=True,
                            text=True, timeout=300)
    assert stored.returncode == 0, stored.stderr[-2000:]
    folder = data / "runs" / "gen"
    folder.mkdir(parents=True)
    generated = write_problems(folder, 3)
    bfcl_results = tmp_path / "BFCL_v4_simple_python_result.jsonl"
    bfcl_results.write_text(json.dumps({"id": "simple_python_0", "result": "[calculate_triangle_area(base=10, height=5)]"}))
    task_id = json.loads(GAIA_METADATA.read_text().splitlines()[0])["task_id"]
    gaia_submission = tmp_path / "submission.jsonl"
    gaia_submission.write_text(json.dumps({"task_id": task_id, "model_answer": "1"}))
    import app

    demo = app.build_demo()
    demo.queue()
    _, url, _ = launch_demo(demo)
    requests_before = len(peer.chat_requests())
    try:
        yield {"url": url, "peer": peer, "data": data, "generated": generated, "requests": requests_before,
               "bfcl_results": bfcl_results, "gaia_submission": gaia_submission}
    finally:
        demo.close()
        peer.stop()


def arguments(endpoint: dict, fixtures: dict) -> list:
    """Inputs that would do real work if the call were allowed."""
    upload = handle_file(str(fixtures["generated"]))
    by_label = {"endpoint.base_url": fixtures["peer"].base_url, "endpoint.model": "m", "run.stored": "stored-run",
                "verify.reviewer": "mallory", "verify.status": "approved", "verify.comments": "mine now",
                "aime.file": None, "score.category": "simple_python",
                "score.results": handle_file(str(fixtures["bfcl_results"])),
                "score.submission": handle_file(str(fixtures["gaia_submission"])),
                "score.metadata": handle_file(str(GAIA_METADATA))}
    values = []
    for parameter in endpoint["parameters"]:
        label = parameter["label"]
        key = label.get("key") if isinstance(label, dict) else label
        if key in by_label:
            values.append(by_label[key])
        elif parameter["component"] == "File":
            values.append(upload)
        elif parameter.get("parameter_has_default"):
            values.append(parameter["parameter_default"])
        else:
            values.append(None)
    return values


def refusal_of(client: Client, name: str, args: list) -> str:
    try:
        outputs = client.predict(*args, api_name=f"/{name}")
    except Exception as exc:  # a handler that raises gr.Error reaches the client as an AppError
        if "403 Forbidden" in str(exc) and "/gradio_api/upload" in str(exc):
            return f"{REFUSAL} upload: the file was refused before any handler ran"
        return str(exc)
    return json.dumps(outputs, default=str, ensure_ascii=False)  # handlers that keep the page usable say it in an output


def test_every_endpoint_that_does_work_refuses_an_anonymous_caller(locked_app):
    from evalui.endpoint.local import model as local_model

    client = app_client(locked_app["url"], verbose=False)
    endpoints = client.view_api(return_format="dict", print_info=False)["named_endpoints"]
    names = {name.lstrip("/") for name in endpoints}
    assert READ_ONLY <= names, f"read-only endpoints renamed or gone: {READ_ONLY - names}"
    working = sorted(names - READ_ONLY)
    assert {"score_bfcl_file", "score_gaia_file", "verify_save", "verify_upload", "verify_export_approved",
            "bfcl_start", "runs_start", "runs_delete", "local_model_start"} <= set(working)

    # The session first opens what the work would act on, through read-only endpoints an anonymous caller may use.
    client.predict(api_name="/verify_files")
    client.predict(str(locked_app["generated"]), api_name="/verify_open")
    client.predict(api_name="/runs_runs")
    client.predict("stored-run", api_name="/runs_show")

    store = RunStore()
    runs_before = [e["exp_id"] for e in store.experiments()]
    files_before, scratch_before = data_snapshot(locked_app["data"]), scratch_dirs()

    not_refused = {}
    for name in working:
        answer = refusal_of(client, name, arguments(endpoints[f"/{name}"], locked_app))
        if REFUSAL not in answer:
            not_refused[name] = answer[:300]
    assert not not_refused, f"endpoints that did not refuse an anonymous caller: {not_refused}"

    assert [e["exp_id"] for e in store.experiments()] == runs_before == ["stored-run"]
    assert store.experiment("stored-run")["status"] == "finished"
    assert data_snapshot(locked_app["data"]) == files_before  # no upload, review, export or run folder
    assert not (locked_app["data"] / "uploads").exists() or not any((locked_app["data"] / "uploads").iterdir())
    assert scratch_dirs() == scratch_before  # no verdicts were written
    assert len(locked_app["peer"].chat_requests()) == locked_app["requests"]  # no model was asked anything
    assert not local_model.local_model().running


def test_the_allowed_user_is_not_refused(locked_app, monkeypatch):
    """The same app with password auth: alice saves a review, which lands in the reviews file."""
    import app

    demo = app.build_demo()
    demo.queue()
    _, url, _ = launch_demo(demo, auth=("alice", "pw"))
    try:
        client = app_client(url, auth=("alice", "pw"), verbose=False)
        client.predict(api_name="/verify_files")
        client.predict(str(locked_app["generated"]), api_name="/verify_open")
        outputs = client.predict("alice", 5, 4, 3, 4, "approved", "", api_name="/verify_save")
        assert outputs[0] == "Saved gen-0000."
    finally:
        demo.close()
    reviews = json.loads(locked_app["generated"].with_name(f"{locked_app['generated'].stem}_verifications.json").read_text())
    assert reviews["gen-0000"]["reviewer"] == "alice"
