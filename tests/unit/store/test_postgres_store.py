"""The run store on PostgreSQL (a throwaway server, tests/pg_server.py) and on SQLite, through one
API: migrations, group-committed writes, claims that never hand one sample to two workers, leases
that expire, dashboard replicas that see one another's runs, and a cancel from any replica."""
from __future__ import annotations

import threading
import time

import pytest
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)

from evalui.store.run_store import RunStore


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.sqlite'}"
    return request.getfixturevalue("pg_url")


def _register(store: RunStore, exp_id: str, count: int) -> None:
    store.create_or_get_experiment(exp_id, "echo", "m", "h", {"k": 1})
    store.add_samples(exp_id, [(f"s{i}", "g", {"word": f"w{i}"}) for i in range(count)])


def test_concurrent_claimers_never_share_a_sample(store_url):
    stores = [RunStore(url=store_url) for _ in range(4)]
    _register(stores[0], "e", 300)
    taken: dict[int, list[str]] = {k: [] for k in range(4)}

    for k, store in enumerate(stores):
        store.join_run("e", f"w{k}")

    start = threading.Barrier(4)

    def claimer(k: int) -> None:
        start.wait()
        while batch := stores[k].claim_samples("e", f"w{k}", 7):
            taken[k] += [s.sample_id for s in batch]
            time.sleep(0.01)  # the batch's work: the others claim meanwhile
            for sample in batch:
                stores[k].record_judgement("e", sample.sample_id, prediction=k, correct=True, verdict={}, wait=False)

    threads = [threading.Thread(target=claimer, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    everything = [sid for ids in taken.values() for sid in ids]
    assert len(everything) == 300 and len(set(everything)) == 300
    assert sum(1 for ids in taken.values() if ids) >= 2  # they really did split it
    for store in stores:
        store.flush()
    assert stores[0].progress("e")["judged"] == 300 and stores[0].experiment("e")["stored_status"] == "finished"
    for store in stores:
        store.close()


def test_a_claim_takes_at_most_its_limit(store_url):
    # On PostgreSQL a claim of 1 once took every free sample (the planner rescanned the locking pick).
    store = RunStore(url=store_url)
    _register(store, "e", 5)
    assert [[s.sample_id for s in store.claim_samples("e", "w", limit)] for limit in (1, 2, 1, 5)] == \
        [["s0"], ["s1", "s2"], ["s3"], ["s4"]]
    store.close()
