"""Run state across processes: SIGTERM and Ctrl-C stop a CLI run during its requests, a killed run
shows as interrupted, a running run cannot be deleted, and stores from the first wave still open."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys

import pytest
from peers import SENTINEL_KEY, Held
from waiting import HANG_S, wait_for

from evalui.engine.store import MIGRATIONS, SCHEMA, RunBusy, RunStore
from evalui.engine.url_policy import RefusedURL, check_base_url, redact_url
from evalui.testing.openai_peer import ScriptedPeer


def start_cli_run(peer, data_dir, exp_id, extra=()):
    env = {**os.environ, "EVALUI_DATA_DIR": str(data_dir), "OPENAI_API_KEY": SENTINEL_KEY}
    return subprocess.Popen(
        [sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python", "--limit", "6",
         "--mode", "fc", "--base-url", peer.base_url, "--model", "m", "--exp-id", exp_id, "--concurrency", "2",
         "--timeout", "3600", *extra],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def ends(process, what: str) -> None:
    try:
        process.wait(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"{what}: the run still went {HANG_S:g} s later") from None


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_a_signal_stops_a_cli_run_during_its_requests(tmp_path, sig):
    # The endpoint holds both requests until the test ends: a run that waited for them would never end.
    with Held() as held, ScriptedPeer(held) as peer:
        process = start_cli_run(peer, tmp_path, "sig-1")
        wait_for(lambda: len(peer.chat_requests()) >= 2 or process.poll() is not None, "the run never asked the endpoint")
        assert process.poll() is None, process.communicate()[1][-3000:]
        process.send_signal(sig)
        ends(process, f"signal {sig.name}")
        asked = len(peer.chat_requests())
    assert process.returncode == 130, process.stderr.read()
    assert asked == 2  # nothing was asked after the signal
    store = RunStore(tmp_path / "evalui.sqlite")
    assert store.experiment("sig-1")["status"] == "cancelled"
    assert store.progress("sig-1")["judged"] == 0
    store.close()


def test_a_killed_run_is_interrupted_and_only_then_deletable(tmp_path):
    with Held() as held, ScriptedPeer(held) as peer:
        process = start_cli_run(peer, tmp_path, "kill-1")
        wait_for(lambda: len(peer.chat_requests()) >= 2 or process.poll() is not None, "the run never asked the endpoint")
        store = RunStore(tmp_path / "evalui.sqlite")
        assert store.experiment("kill-1")["status"] == "running"
        with pytest.raises(RunBusy, match="running"):
            store.delete_experiment("kill-1")
        process.kill()
        ends(process, "kill -9")
    experiment = store.experiment("kill-1")
    assert experiment["status"] == "interrupted" and experiment["stored_status"] == "running"
    store.delete_experiment("kill-1")
    assert store.experiment("kill-1") is None
    store.close()


def test_a_store_written_by_the_first_wave_opens_and_migrates(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)  # the first wave's schema, with no user_version recorded
    db.execute("INSERT INTO experiments (exp_id, benchmark, model, endpoint_host, config, status, created_at, updated_at)"
               " VALUES ('old-1', 'bfcl', 'm', 'h', '{\"mode\": \"fc\"}', 'finished', 1, 1)")
    db.execute("INSERT INTO samples (exp_id, sample_id, position, grp, stage, payload, correct, updated_at)"
               " VALUES ('old-1', 's1', 0, 'simple_python', 'judged', '{}', 1, 1)")
    db.commit()
    db.close()
    store = RunStore(path)
    assert store.schema_version == len(MIGRATIONS)
    assert store.experiment("old-1")["status"] == "finished" and store.experiment("old-1")["config"] == {"mode": "fc"}
    assert store.progress("old-1") == {"total": 1, "judged": 1, "correct": 1, "errors": 0, "tokens": 0}
    store.claim_run("old-1")  # the new columns are there
    assert store.experiment("old-1")["owner"]
    store.close()
    assert RunStore(path).schema_version == len(MIGRATIONS)  # reopening runs no step twice


def test_shared_deployments_refuse_private_addresses_and_query_strings(monkeypatch):
    monkeypatch.delenv("EVALUI_ALLOWED_HOSTS", raising=False)
    for url in ("http://127.0.0.1:8000/v1", "http://localhost:11434/v1", "http://10.1.2.3/v1", "http://192.168.0.7/v1",
                "http://169.254.169.254/latest", "http://[::1]:8000/v1", "http://0.0.0.0:80/v1"):
        with pytest.raises(RefusedURL, match="loopback, private or link-local"):
            check_base_url(url, shared=True)
        assert check_base_url(url, shared=False) == url  # one person's own machine: allowed
    with pytest.raises(RefusedURL, match="query string"):
        check_base_url("https://203.0.113.9/v1?api-key=x", shared=True)
    for url in ("ftp://example.com/v1", "not a url", "http:///v1", "http://host:99999/v1"):
        with pytest.raises(RefusedURL):
            check_base_url(url, shared=False)
    monkeypatch.setenv("EVALUI_ALLOWED_HOSTS", "127.0.0.1:8000")
    assert check_base_url("http://127.0.0.1:8000/v1", shared=True)
    with pytest.raises(RefusedURL):
        check_base_url("http://127.0.0.1:8001/v1", shared=True)


def test_the_cli_refuses_a_private_base_url_in_shared_mode(tmp_path):
    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path), "EVALUI_SHARED": "1"}
    env.pop("EVALUI_ALLOWED_HOSTS", None)
    done = subprocess.run([sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python", "--limit", "1",
                           "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "private" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_redact_url_hides_credentials_and_query_values():
    shown = redact_url("https://bob:s3cretpw@api.example.com/v1?api-key=abc123&x=1")
    assert "s3cretpw" not in shown and "abc123" not in shown and "bob" not in shown
    assert shown.startswith("https://[redacted]@api.example.com/v1?")
    assert json.dumps(redact_url("http://127.0.0.1:8000/v1")) == '"http://127.0.0.1:8000/v1"'


def test_the_last_verdict_marks_the_run_finished_in_the_same_write(tmp_path):
    store = RunStore(tmp_path / "s.sqlite")
    store.create_or_get_experiment("fin-1", "echo", "m", "h", {})
    store.add_samples("fin-1", [("a", "g", {}), ("b", "g", {})])
    store.claim_run("fin-1")
    store.record_judgement("fin-1", "a", prediction="x", correct=True, verdict={})
    assert store.experiment("fin-1")["status"] == "running"
    store.record_judgement("fin-1", "b", prediction="y", correct=False, verdict={})
    store.close()
    # As if the process died right after its last verdict, before any summary or status write.
    assert RunStore(tmp_path / "s.sqlite").experiment("fin-1")["status"] == "finished"
