"""The per-run counts kept in the run's row (evalui.store.counts) equal a recount of its
samples after everything that changes samples: endpoint errors, retries, a resume, epochs, a
rescore, a flipped verdict, a deleted run, and several workers judging one run at once; on SQLite
and on PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from peers import settings_for
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.ops.rescore import rescore
from evalui.run import lifecycle
from evalui.run.epochs import add_epochs
from evalui.store.run_store import RunStore
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, error


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'counts.sqlite'}"
    return request.getfixturevalue("pg_url")


def recount(store: RunStore, exp_id: str) -> dict:
    """What progress() returned when it read every sample."""
    samples = store.samples(exp_id)
    return {"total": len(samples),
            "judged": sum(1 for s in samples if s.stage == "judged"),
            "correct": sum(1 for s in samples if s.stage == "judged" and s.correct),
            "errors": sum(1 for s in samples if s.stage != "judged" and s.error is not None),
            "tokens": sum(s.prompt_tokens + s.completion_tokens for s in samples)}


def assert_counts_exact(store: RunStore, exp_id: str) -> dict:
    expected = recount(store, exp_id)
    assert store.progress(exp_id) == expected
    listed = {e["exp_id"]: e["counts"] for e in store.experiments()}
    assert listed[exp_id] == expected
    return expected


def test_counts_equal_a_recount_through_errors_retries_resume_epochs_and_rescore(store_url, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    oracle = BfclOracle(["simple_python"])
    asked: Counter = Counter()
    broken = {"on": True}

    def script(body, n):
        entry = oracle.entry_for(body)
        asked[entry.id] += 1
        if entry.id.endswith("_1") and broken["on"]:
            return error(400, "scripted refusal")  # fails for good: an error until the resume
        if entry.id.endswith("_2") and asked[entry.id] == 1:
            return error(500, "scripted hiccup")  # retried, then answered
        if entry.id.endswith("_3"):
            return oracle.wrong_reply(body)
        return oracle.gold_reply(body)

    store = RunStore(url=store_url)
    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=2)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=8, mode="fc"),
                                   settings, exp_id="counted", out=tmp_path / "out")
        assert add_epochs(store, exp_id, 2) == 2
        assert_counts_exact(store, exp_id)
        lifecycle.execute(store, exp_id, settings, concurrency=4)
        first = assert_counts_exact(store, exp_id)
        assert first["total"] == 16 and first["errors"] == 2 and first["judged"] == 14
        assert first["correct"] == 12 and first["tokens"] > 0

        broken["on"] = False  # the resume answers the two that failed
        lifecycle.execute(store, exp_id, settings, concurrency=4)
        resumed = assert_counts_exact(store, exp_id)
        assert resumed["errors"] == 0 and resumed["judged"] == 16 and resumed["correct"] == 14

    assert rescore(store, exp_id)["changed"] == 0
    assert assert_counts_exact(store, exp_id) == resumed
    # A rescore that flips verdicts both ways (as another scorer would).
    samples = {s.sample_id: s for s in store.samples(exp_id)}
    right = next(i for i, s in samples.items() if s.correct)
    wrong = next(i for i, s in samples.items() if not s.correct)
    store.record_judgement(exp_id, right, prediction=None, correct=False, verdict={"error_type": "flipped"})
    store.record_judgement(exp_id, wrong, prediction=None, correct=True, verdict={})
    assert assert_counts_exact(store, exp_id)["correct"] == resumed["correct"]

    # Another run, deleted: this run's counts do not move, and the deleted one is gone.
    other = "deleted-one"
    store.create_or_get_experiment(other, "echo", "m", "h", {})
    store.add_samples(other, [(f"o{i}", "g", {}) for i in range(5)])
    assert store.progress(other)["total"] == 5
    store.delete_experiment(other)
    assert store.progress(other) == {"total": 0, "judged": 0, "correct": 0, "errors": 0, "tokens": 0}
    assert assert_counts_exact(store, exp_id) == resumed
    store.close()

    reopened = RunStore(url=store_url)  # what another process reads
    assert reopened.progress(exp_id) == resumed
    reopened.close()


def test_workers_in_parallel_keep_the_counts_exact(store_url):
    stores = [RunStore(url=store_url) for _ in range(3)]
    stores[0].create_or_get_experiment("shared", "echo", "m", "h", {})
    stores[0].add_samples("shared", [(f"s{i}", f"g{i % 3}", {"i": i}) for i in range(240)])
    start = threading.Barrier(len(stores))

    def worker(k: int) -> None:
        store = stores[k]
        store.join_run("shared", f"w{k}")
        start.wait()
        while batch := store.claim_samples("shared", f"w{k}", 5):
            for sample in batch:
                number = int(sample.sample_id[1:])
                if number % 7 == 0:
                    store.record_error("shared", sample.sample_id, request={"i": number}, error="boom", attempts=3,
                                       wait=False)
                    continue
                ticket = store.record_rollout("shared", sample.sample_id, request={"i": number}, response={"t": k},
                                              latency_s=0.01, prompt_tokens=3, completion_tokens=number % 5,
                                              attempts=1, wait=False)
                store.record_judgement("shared", sample.sample_id, prediction=k, correct=number % 2 == 0,
                                       verdict={}, wait=False, after=ticket)
        store.flush()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(len(stores))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    counts = assert_counts_exact(stores[0], "shared")
    assert counts["total"] == 240 and counts["errors"] == 35 and counts["judged"] == 205
    for store in stores:
        store.close()
