"""A store written before the search index was kept with the samples (schema step ``search_index``)
migrates on SQLite and PostgreSQL: the old index built on first use is dropped, every stored sample is
indexed once (its id, its call and its verdict with the checker's reason), and a first search then
finds them without writing anything."""
from __future__ import annotations

import sqlite3

from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)

from evalui.store import search as store_search
from evalui.store.run_store import MIGRATIONS, RunStore
from evalui.store.schema import search_index
from evalui.store.sql import PostgresConnection

BEFORE = MIGRATIONS.index(search_index)  # the schema version before the index was written with the samples


def write_run(store: RunStore) -> None:
    store.create_or_get_experiment("e", "echo", "m", "h", {})
    store.add_samples("e", [("item_0", "g", {}), ("item_1", "g", {}), ("item_2", "h", {})])
    store.record_rollout("e", "item_0", request={"messages": [{"role": "user", "content": "Weather in Paris?"}]},
                         response={"text": "Sunny."}, latency_s=0.1, prompt_tokens=1, completion_tokens=1, attempts=1)
    store.record_judgement("e", "item_0", prediction="Sunny.", correct=False, verdict={"reason": "no umbrella found"})
    store.record_error("e", "item_1", request={"messages": [{"role": "user", "content": "Tell a joke"}]},
                       error="HTTP 503: overloaded", attempts=1)


def check(store: RunStore) -> None:
    assert store.schema_version == len(MIGRATIONS)
    assert store_search.search(store, "e", "paris") == ["item_0"]
    assert store_search.search(store, "e", "umbrella") == ["item_0"]  # the checker's reason
    assert store_search.search(store, "e", "overloaded joke") == ["item_1"]  # the endpoint's error and the prompt
    assert store_search.search(store, "e", "item_2") == ["item_2"]  # never asked: its id
    assert store.sample("e", "item_1").findings is None  # not scanned yet: the next summary stores them


def test_a_sqlite_store_from_before_the_index_migrates(tmp_path):
    path = tmp_path / "store.sqlite"
    store = RunStore(path)
    write_run(store)
    store.close()
    with sqlite3.connect(path) as db:  # the store as the step before wrote it, with the old index
        for name in ("samples_unsearched", "search_docs_added", "search_docs_gone", "search_docs_changed"):
            db.execute(f"DROP TRIGGER {name}")
        db.execute("DROP TABLE search_text")
        db.execute("DROP TABLE search_docs")
        db.execute("ALTER TABLE samples DROP COLUMN error_findings")
        db.execute("CREATE TABLE sample_text_state (doc INTEGER PRIMARY KEY, exp_id TEXT, sample_id TEXT)")
        db.execute(f"PRAGMA user_version = {BEFORE}")
    migrated = RunStore(path)
    try:
        check(migrated)
    finally:
        migrated.close()
    with sqlite3.connect(path) as db:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert "sample_text_state" not in names and {"search_docs", "search_text"} <= names
    assert RunStore(path).schema_version == len(MIGRATIONS)  # reopening runs no step twice


def test_a_postgresql_store_from_before_the_index_migrates(pg_url):
    store = RunStore(url=pg_url)
    write_run(store)
    store.close()
    old = PostgresConnection(pg_url)
    old.execute("DROP TABLE search_docs")
    old.execute("ALTER TABLE samples DROP COLUMN error_findings")
    old.execute("CREATE TABLE sample_search (exp_id TEXT, sample_id TEXT, body TEXT)")
    old.execute("UPDATE evalui_schema SET version = ?", (BEFORE,))
    old.commit()
    old.close()
    migrated = RunStore(url=pg_url)
    try:
        check(migrated)
    finally:
        migrated.close()
