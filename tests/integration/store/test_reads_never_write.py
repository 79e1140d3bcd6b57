"""Reads never write: everything the viewer reads (rows, filter choices, filtered, searched and sorted
lists, pages, transcript panes, searches, the labels' precision, the Runs listing) runs against a store
whose connections refuse every write. SQLite: an authorizer on the store's connection that denies any
statement but a read (its read connections are query_only already); PostgreSQL: read-only sessions.
Neither scanning nor indexing happens on a read, and a first search builds no index."""
from __future__ import annotations

import sqlite3
from urllib.parse import urlsplit

import pytest
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)
from unit.store.test_postgres_store import store_url  # noqa: F401  (a fixture: SQLite and PostgreSQL)

from evalui.ops import history
from evalui.store import search as store_search
from evalui.store.run_store import RunStore
from evalui.viewer import data, rows
from evalui.viewer import findings as labelling
from integration.store.test_store_view_sql import stored_run

pytestmark = pytest.mark.integration

# What a read may ask of SQLite; anything else (an insert, an update, a table made, a pragma set) is denied.
_READS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_TRANSACTION,
          sqlite3.SQLITE_RECURSIVE}


def read_only(store: RunStore, url: str) -> list:
    """Make every connection of ``store`` refuse writes; returns the list the SQLite tripwire fills."""
    denied: list = []
    if store.dialect == "sqlite":
        def authorize(action, arg1, arg2, database, trigger):
            if action in _READS or (action == sqlite3.SQLITE_PRAGMA and arg2 is None):
                return sqlite3.SQLITE_OK
            denied.append((action, arg1, arg2))
            return sqlite3.SQLITE_DENY

        store._db.set_authorizer(authorize)
        return denied
    from evalui.store.sql import PostgresConnection

    admin = PostgresConnection(url)
    admin.execute(f'ALTER DATABASE "{urlsplit(url).path.lstrip("/")}" SET default_transaction_read_only = on')
    admin.commit()
    admin.close()
    store._db.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
    store._db.commit()
    return denied


def test_the_viewers_reads_write_nothing(store_url, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    writer = RunStore(url=store_url)
    stored_run(writer)
    writer.close()
    store = RunStore(url=store_url)  # a fresh store: nothing kept in memory, no search run yet
    denied = read_only(store, store_url)
    with pytest.raises(Exception, match="(?i)not authorized|read-only"):  # the tripwire trips on a write
        store.set_status("v", "finished")
    denied.clear()

    every = data.run_rows(store, "v")
    assert len(every) == 45 and data.choices(store, "v") == rows.filter_choices(every)
    assert [r["id"] for r in data.listing(store, "v", text="alpha")[1]] == store_search.search(store, "v", "alpha")
    assert data.listing(store, "v", verdict="error", finding=rows.ANY_INVALID, column="latency_s", descending=True)[1]
    page = data.page(store, "v", text="question", column="tokens", number=None, selected=every[30]["id"], size=10)
    assert page.total > 10 and every[30]["id"] in [r["id"] for r in page.rows]
    for row in every[:8]:  # an endpoint error, a pending sample, judged ones: each one's pane and findings
        html, _ = data.pane(store, "v", row["id"])
        assert row["id"] in html
    assert data.search_ids(store, "v", "no call") and data.verdicts(store, "v")
    assert labelling.precision(store, "v") == {}
    assert "v" in set(history.runs_frame(store)["exp_id"])
    assert store.sample_page("v", 0, 20, verdict="wrong").rows

    store.flush()  # a write queued by a read would fail here
    assert denied == []
    store.close()
