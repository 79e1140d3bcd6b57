"""A claim hands back only each claimed sample's id and updated_at (every digit of it), in run
order, in one step on SQLite; the samples are leased as before, and what another worker writes
later shows in updated_at; on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)

from evalui.store.run_store import RunStore

PICK = ("SELECT sample_id, updated_at, position FROM samples WHERE exp_id = ? AND stage IN ('init', 'rollout')"
        " AND (claimed_by IS NULL OR lease_until < ?) ORDER BY position LIMIT ?")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'keys.sqlite'}"
    return request.getfixturevalue("pg_url")


def test_claim_keys_lease_in_order_and_give_updated_at_exactly(store_url):
    store = RunStore(url=store_url)
    try:
        store.create_or_get_experiment("e", "echo", "m", "h", {})
        # Positions not in the order of the ids: the claim follows positions.
        store.add_samples("e", [(f"s{i:03d}", "g", {}) for i in reversed(range(300))])
        stored = {s.sample_id: s for s in store.samples("e")}
        store.record_error("e", "s299", request={}, error="boom", attempts=1)  # a write: a new updated_at
        stored["s299"] = store.sample("e", "s299")

        first = store.claim_keys("e", "w1", 120)
        second = store.claim_keys("e", "w2", 500)
        assert [sample_id for sample_id, _ in first] == [s.sample_id for s in store.samples("e")][:120]
        assert {sample_id for sample_id, _ in first}.isdisjoint(sample_id for sample_id, _ in second)
        assert len(first) + len(second) == 300 and store.claim_keys("e", "w3", 10) == []
        # Every digit: equal to the float the full read gives, so a caller can tell a sample unchanged.
        assert all(updated_at == stored[sample_id].updated_at for sample_id, updated_at in first + second)
        holders = {s.sample_id: s.claimed_by for s in store.samples("e")}
        assert {holders[sample_id] for sample_id, _ in first} == {"w1"}
        assert {holders[sample_id] for sample_id, _ in second} == {"w2"}
        # claim_samples is the same lease, with the samples in full.
        store.leave_run("e", "w2")
        again = store.claim_samples("e", "w4", 3)
        assert [s.sample_id for s in again] == [sample_id for sample_id, _ in second[:3]]
        assert [s.claimed_by for s in again] == ["w4"] * 3 and again[0].error is None
    finally:
        store.close()


def test_the_sqlite_pick_still_reads_the_unfinished_index(tmp_path):
    store = RunStore(tmp_path / "plan.sqlite")
    try:
        plan = " | ".join(row[3] for row in store._db.execute(f"EXPLAIN QUERY PLAN {PICK}", ("e", 0.0, 5)))
        assert "USING INDEX samples_unfinished" in plan and "TEMP B-TREE" not in plan, plan
    finally:
        store.close()
