"""The run store on PostgreSQL (a throwaway server, tests/pg_server.py) and on SQLite, through one
API: migrations, group-committed writes, claims that never hand one sample to two workers, leases
that expire, dashboard replicas that see one another's runs, and a cancel from any replica."""
from __future__ import annotations

import threading

from peers import Held, settings_for
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)
from unit.store.test_postgres_store import _register, store_url  # noqa: F401  (shared with the unit layer; fixtures are used by name)
from waiting import HANG_S, wait_for

from evalui.endpoint.client import ModelClient
from evalui.run.background import BackgroundRuns
from evalui.run.runner import run_experiment
from evalui.store.run_store import MIGRATIONS, RunStore
from evalui.store.sql import redact_database_url
from support.openai_peer import ScriptedPeer, completion


def test_the_url_chooses_the_store_and_one_schema_serves_both(store_url, monkeypatch, tmp_path):
    monkeypatch.setenv("EVALUI_DATABASE_URL", store_url)
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    store = RunStore()  # from the environment, as the CLI and the dashboard open it
    assert store.dialect == ("postgresql" if store_url.startswith("postgresql") else "sqlite")
    assert store.schema_version == len(MIGRATIONS)
    _register(store, "e", 3)
    assert store.add_samples("e", [("s0", "g", {}), ("s9", "g", {})]) == 1  # known samples are kept
    store.record_rollout("e", "s0", request={"q": "é"}, response={"text": "a"}, latency_s=0.25, prompt_tokens=2,
                         completion_tokens=3, attempts=1, trajectory=[{"text": "a"}])
    store.record_judgement("e", "s0", prediction="a", correct=True, verdict={"v": 1})
    store.record_error("e", "s1", request={"q": 1}, error="boom", attempts=2)
    assert store.progress("e") == {"total": 4, "judged": 1, "correct": 1, "errors": 1, "tokens": 5}
    first = store.samples("e")[0]
    assert (first.stage, first.request, first.latency_s, first.correct, first.trajectory) == \
        ("judged", {"q": "é"}, 0.25, True, [{"text": "a"}])
    assert store.experiment("e")["config"] == {"k": 1} and store.experiments("echo")[0]["exp_id"] == "e"
    store.close()
    reopened = RunStore(url=store_url)  # reopening runs no migration twice
    assert reopened.schema_version == len(MIGRATIONS) and reopened.progress("e")["judged"] == 1
    reopened.delete_experiment("e")
    assert reopened.experiment("e") is None and reopened.samples("e") == []
    reopened.close()


def test_replicas_see_one_run_and_any_replica_cancels_it(store_url):
    """Two dashboards on one store: one runs, the other sees its progress and cancels it."""
    def echo(body, n):
        reply = completion(body["messages"][0]["content"])
        reply.delay_s = 0.2
        return reply

    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from integration.run.test_runner import EchoTask

    running, watching = RunStore(url=store_url), RunStore(url=store_url)
    _register(running, "e", 200)
    outcome = {}
    with Held(echo, holding=False) as held, ScriptedPeer(held) as peer:
        thread = threading.Thread(target=lambda: outcome.setdefault("final", run_experiment(
            running, "e", EchoTask(), ModelClient(settings_for(peer, timeout_s=3600)), concurrency=2)), daemon=True)
        thread.start()
        wait_for(lambda: watching.progress("e")["judged"] >= 3, "the run never judged 3 samples")
        seen = watching.experiment("e")
        assert seen["status"] == "running" and watching.live_workers("e")
        # The other replica's Cancel button: its own registry does not run "e", so the store carries it.
        # From now on the endpoint holds every answer: a run that missed the cancel would never end.
        held.hold()
        assert BackgroundRuns().cancel("e", watching)
        thread.join(HANG_S)
    assert not thread.is_alive(), f"the run still went {HANG_S:g} s after another replica cancelled it"
    assert outcome["final"].message == "cancelled"
    assert watching.experiment("e")["status"] == "cancelled" and watching.live_workers("e") == []
    judged = watching.progress("e")["judged"]
    assert 3 <= judged < 200
    assert not watching.request_cancel("e")  # nobody works on it any more
    running.close()
    watching.close()


def test_a_database_password_is_never_shown():
    shown = redact_database_url("postgresql://alice:hunter2-secret@db.example.com:5432/evalui?password=x2&sslmode=require")
    assert "hunter2-secret" not in shown and "x2" not in shown
    assert shown.startswith("postgresql://alice:[redacted]@db.example.com:5432/evalui")


def test_a_lease_runs_out_and_the_sample_is_claimed_again(store_url, monkeypatch):
    first, second = RunStore(url=store_url), RunStore(url=store_url)
    _register(first, "e", 2)
    # s0 is held for an hour, so "still leased" cannot race the clock; s1 for half a second.
    monkeypatch.setenv("EVALUI_LEASE_S", "3600")
    assert [s.sample_id for s in first.claim_samples("e", "dead-worker", 1)] == ["s0"]
    monkeypatch.setenv("EVALUI_LEASE_S", "0.5")
    assert [s.sample_id for s in first.claim_samples("e", "dead-worker", 1)] == ["s1"]
    assert second.held_elsewhere("e", "alive") is not None
    # s1 comes back once its lease has run out; s0, still leased, never does.
    reclaimed = wait_for(lambda: second.claim_samples("e", "alive", 10), "the half-second lease never ran out")
    assert [s.sample_id for s in reclaimed] == ["s1"]
    assert second.claim_samples("e", "alive", 10) == [] and second.held_elsewhere("e", "alive") is not None
    first.close()
    second.close()
