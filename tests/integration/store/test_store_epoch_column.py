"""The epoch is a column of the store (schema step ``epoch_column``), not only a suffix of the id: a
store written before the step, holding a run of two epochs, migrates on SQLite and PostgreSQL, each
row's epoch is read from its id once, the samples read back with their epoch and own id, and the
run's exports are byte-identical before and after."""

from __future__ import annotations

import shutil
import sqlite3

from peers import settings_for
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run.run import prepare
from evalui.store.run_store import MIGRATIONS, RunStore
from evalui.store.schema import epoch_column
from integration.store.test_store_migration_parts import _exports
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

BEFORE_EPOCHS = MIGRATIONS.index(epoch_column)  # the schema version before the epoch column


def run_two_epochs(url_or_path, out) -> tuple[dict, dict]:
    """A run of simple_python and multi_turn_base samples over two epochs; its rows' epochs and exports."""
    single, multi = BfclOracle(["simple_python"]), MultiTurnOracle(["multi_turn_base"], limit=2)

    def script(body, n):
        entry = single.entry_for(body)
        if entry is not None:
            return single.wrong_reply(body) if entry.id.endswith("_1") else single.gold_reply(body)
        return multi.reply(body)

    store = RunStore(url=url_or_path) if str(url_or_path).startswith("postgresql") else RunStore(url_or_path)
    with ScriptedPeer(script) as peer:
        run = prepare(store, BFCL, BfclOptions(categories=["simple_python", "multi_turn_base"], limit=2),
                      settings_for(peer), epochs=2, exp_id="two-epochs", out=out)
        summary = run.execute(concurrency=2)
    epochs = {s.sample_id: (s.epoch, s.own_id) for s in store.samples(run.exp_id)}
    store.close()
    assert summary["judged"] == 8 and summary["epochs"]["epochs"] == 2
    return epochs, _exports(out)


def check_migrated(store: RunStore, epochs: dict, out, exported: dict) -> None:
    assert store.schema_version == len(MIGRATIONS)
    assert {s.sample_id: (s.epoch, s.own_id) for s in store.samples("two-epochs")} == epochs
    assert sorted(e for e, _own in epochs.values()) == [1, 1, 1, 1, 2, 2, 2, 2]
    assert epochs["multi_turn_base_1#e2"] == (2, "multi_turn_base_1") and epochs["simple_python_0"] == (1, "simple_python_0")
    shutil.rmtree(out)
    from evalui.run.run import Run

    Run.open(store, "two-epochs").export()
    again = _exports(out)
    assert set(again) == set(exported) and {"samples.jsonl", "summary.json"} <= set(again)
    for name in exported:
        assert again[name] == exported[name], f"{name} differs after the migration"


def test_a_sqlite_store_from_before_the_epoch_column_migrates(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    path, out = tmp_path / "store.sqlite", tmp_path / "out"
    epochs, exported = run_two_epochs(path, out)
    with sqlite3.connect(path) as db:  # the store as the step before wrote it
        db.execute("DROP INDEX samples_by_epoch")
        db.execute("ALTER TABLE samples DROP COLUMN epoch")
        db.execute("ALTER TABLE samples DROP COLUMN error_findings")  # a later step's column
        db.execute(f"PRAGMA user_version = {BEFORE_EPOCHS}")
        assert "epoch" not in {row[1] for row in db.execute("PRAGMA table_info(samples)")}
    migrated = RunStore(path)
    try:
        check_migrated(migrated, epochs, out, exported)
    finally:
        migrated.close()
    assert RunStore(path).schema_version == len(MIGRATIONS)  # reopening runs no step twice


def test_a_postgresql_store_from_before_the_epoch_column_migrates(tmp_path, monkeypatch, pg_url):
    from evalui.store.sql import PostgresConnection

    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    out = tmp_path / "out"
    epochs, exported = run_two_epochs(pg_url, out)
    old = PostgresConnection(pg_url)
    old.execute("DROP INDEX samples_by_epoch")
    old.execute("ALTER TABLE samples DROP COLUMN epoch")
    old.execute("ALTER TABLE samples DROP COLUMN error_findings")  # a later step's column
    old.execute("UPDATE evalui_schema SET version = ?", (BEFORE_EPOCHS,))
    old.commit()
    old.close()
    migrated = RunStore(url=pg_url)
    try:
        check_migrated(migrated, epochs, out, exported)
    finally:
        migrated.close()
