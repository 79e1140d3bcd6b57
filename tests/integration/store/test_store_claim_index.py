"""A claim picks the first free unfinished samples through the index of unfinished samples (schema step
``samples_unfinished``), not by reading every judged row before them; a store written before the step
gains the index when it opens, and claims go on in run order."""
from __future__ import annotations

from evalui.store.run_store import MIGRATIONS, RunStore

PICK = ("SELECT sample_id FROM samples WHERE exp_id = ? AND stage IN ('init', 'rollout')"
        " AND (claimed_by IS NULL OR lease_until < ?) ORDER BY position LIMIT ?")


def _judge(store, sample_id):
    store.record_rollout("e", sample_id, request={}, response={"text": "a"}, latency_s=0.1, prompt_tokens=1,
                         completion_tokens=1, attempts=1)
    store.record_judgement("e", sample_id, prediction="a", correct=True, verdict={})


def test_claims_pick_through_the_unfinished_index_and_an_older_store_gains_it(tmp_path):
    path = tmp_path / "claims.sqlite"
    store = RunStore(path)
    store.create_or_get_experiment("e", "echo", "m", "h", {})
    store.add_samples("e", [(f"s{i:02d}", "g", {}) for i in range(30)])
    first = store.claim_samples("e", "w1", 10)
    for sample in first:
        _judge(store, sample.sample_id)
    # The store as the step before this one left it.
    with store._lock:
        store._db.execute("DROP INDEX samples_unfinished")
        store._db.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
        store._db.commit()
    store.close()

    store = RunStore(path)
    try:
        assert store.schema_version == len(MIGRATIONS)
        plan = " | ".join(row[3] for row in store._db.execute(f"EXPLAIN QUERY PLAN {PICK}", ("e", 0.0, 5)))
        assert "USING INDEX samples_unfinished" in plan and "TEMP B-TREE" not in plan, plan
        assert [s.sample_id for s in first] == [f"s{i:02d}" for i in range(10)]
        held = store.claim_samples("e", "w1", 5)
        assert [s.sample_id for s in held] == [f"s{i:02d}" for i in range(10, 15)]
        # Another worker skips what w1 holds, and takes the next in order.
        assert [s.sample_id for s in store.claim_samples("e", "w2", 3)] == ["s15", "s16", "s17"]
        assert store.progress("e")["judged"] == 10
    finally:
        store.close()
