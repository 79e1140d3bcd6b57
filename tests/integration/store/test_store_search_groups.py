"""The search documents of a group of writes are written together, after the group's row updates
(evalui.store.group_commit): every sample of a group is found by what it holds, a document written twice
in one group holds its last text, and a bad write in a group keeps neither its row nor its document."""
from __future__ import annotations

import sqlite3

from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)
from unit.store.test_postgres_store import store_url  # noqa: F401  (a fixture: SQLite and PostgreSQL)

from evalui.store import search as store_search
from evalui.store.run_store import RunStore

SAMPLES = 40


def _rollout(store, sample_id, reply, **options):
    return store.record_rollout("e", sample_id, request={"messages": [{"role": "user", "content": f"ask {sample_id}"}]},
                                response={"text": reply}, latency_s=0.1, prompt_tokens=1, completion_tokens=1,
                                attempts=1, **options)


def test_a_group_of_writes_indexes_each_sample_and_keeps_a_document_s_last_text(store_url):
    store = RunStore(url=store_url)
    try:
        store.create_or_get_experiment("e", "echo", "m", "h", {})
        store.add_samples("e", [(f"item_{i}", "g", {}) for i in range(SAMPLES)])
        with store._lock:  # the writer waits: the writes below queue up and commit as one or two groups
            for i in range(SAMPLES):
                ticket = _rollout(store, f"item_{i}", f"reply{i}first", wait=False)
                if i % 2:  # answered again before the group commits: the second answer is the sample's
                    ticket = _rollout(store, f"item_{i}", f"reply{i}second", wait=False)
                store.record_judgement("e", f"item_{i}", prediction=f"guess{i}x", correct=bool(i % 3),
                                       verdict={"reason": f"because{i}x"}, wait=False, after=ticket)
        store.flush()
        for i in range(SAMPLES):
            assert store_search.search(store, "e", f"guess{i}x") == [f"item_{i}"]
            assert store_search.search(store, "e", f"because{i}x") == [f"item_{i}"]
            last = f"reply{i}second" if i % 2 else f"reply{i}first"
            assert store_search.search(store, "e", last) == [f"item_{i}"]
            if i % 2:
                assert store_search.search(store, "e", f"reply{i}first") == []
        assert store.progress("e")["judged"] == SAMPLES
        assert store.experiment("e")["status"] == "finished"
    finally:
        store.close()


def test_a_bad_write_in_a_group_loses_its_document_and_not_the_others(tmp_path):
    store = RunStore(tmp_path / "s.sqlite")
    try:
        store.create_or_get_experiment("e", "echo", "m", "h", {})
        store.add_samples("e", [("good_0", "g", {}), ("good_1", "g", {})])
        outcomes = []
        with store._lock:
            _rollout(store, "good_0", "zebra", wait=False, on_done=outcomes.append)
            # The same write with a statement SQLite refuses: this write alone fails, its document too.
            store._writer.submit([("UPDATE samples SET no_such_column = 1 WHERE sample_id = ?", ("good_1",)),
                                  store_search.index_statement("sqlite", "e", "good_1", "call", "giraffe")],
                                 wait=False, on_done=outcomes.append)
            _rollout(store, "good_1", "okapi", wait=False, on_done=outcomes.append)
        store.flush()
        assert outcomes[0] is None and isinstance(outcomes[1], sqlite3.OperationalError) and outcomes[2] is None
        assert store_search.search(store, "e", "zebra") == ["good_0"]
        assert store_search.search(store, "e", "okapi") == ["good_1"]
        assert store_search.search(store, "e", "giraffe") == []
    finally:
        store.close()
