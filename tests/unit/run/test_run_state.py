"""Run state across processes: SIGTERM and Ctrl-C stop a CLI run during its requests, a killed run
shows as interrupted, a running run cannot be deleted, and stores from the first wave still open."""
from __future__ import annotations

import json
import sqlite3

import pytest

from evalui.endpoint.url_policy import RefusedURL, check_base_url, redact_url
from evalui.store.run_store import MIGRATIONS, SCHEMA, RunStore


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
