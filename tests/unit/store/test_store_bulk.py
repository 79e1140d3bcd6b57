"""A run of one statement over json_each (evalui.store.bulk) leaves the database exactly as
executemany leaves it: same rows, same types, same search index; and rows JSON would change, or
updates whose keys repeat, go to executemany instead."""

from __future__ import annotations

import math
import random
import sqlite3
import threading

import pytest

from evalui.store.answers import _ANSWER_AND_VERDICT
from evalui.store.bulk import BulkSQL, bulk_rows, bulk_sql
from evalui.store.parts import INSERT_PART
from evalui.store.run_store import RunStore
from evalui.store.search import _UPSERT_SQLITE, search

TEXTS = ["", "plain", "ünïcödé 数学 🧮", "a 'quoted' \"word\"", "back\\slash \\u0000part:x", "line\nbreak\ttab",
         "x" * 5000, "[1, 2]", "{\"json\": true}", "123", "1e5", "null"]


def _value(rng: random.Random):
    kind = rng.randrange(5)
    if kind == 0:
        return rng.choice(TEXTS)
    if kind == 1:
        return rng.choice([0, 1, -1, 2**62, -(2**63), 2**63 - 1, 10_000_000])
    if kind == 2:
        return rng.choice([0.0, 0.1, 1 / 3, 1e-300, 123456.789, -2.5, 1e300])
    return None


def _tables(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE t (k1 TEXT, k2 INTEGER, a, b, c, PRIMARY KEY (k1, k2))")
    db.execute("CREATE TABLE log (k1, k2, a)")
    # A trigger sees each row as executemany would give it, in order.
    db.execute("CREATE TRIGGER t_added AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.k1, NEW.k2, NEW.a); END")


def _dump(db: sqlite3.Connection) -> list:
    return [[(typeof, value) for typeof, value in zip(row[::2], row[1::2])] for row in db.execute(
        "SELECT typeof(k1), k1, typeof(k2), k2, typeof(a), a, typeof(b), b, typeof(c), c FROM t ORDER BY k1, k2")] + \
        [tuple(row) for row in db.execute("SELECT * FROM log ORDER BY rowid")]


def _both(statements: list[tuple[str, list]]) -> tuple[list, list]:
    """The tables after each statement's rows, through executemany and through the bulk form."""
    results = []
    for use_bulk in (False, True):
        db = sqlite3.connect(":memory:")
        _tables(db)
        for sql, rows in statements:
            form = bulk_sql(sql)
            array = bulk_rows(rows, form[1]) if form else None
            if use_bulk and array is not None:
                db.execute(form[0], (array,))
            else:
                db.executemany(sql, rows)
        results.append(_dump(db))
    return results[0], results[1]


@pytest.mark.parametrize("seed", range(20))
def test_inserts_upserts_and_updates_leave_the_same_tables(seed):
    rng = random.Random(seed)
    keys = [(rng.choice(TEXTS[:6]), rng.randrange(4)) for _ in range(40)]  # repeats on purpose
    insert = "INSERT INTO t (k1, k2, a, b, c) VALUES (?, ?, ?, ?, ?) ON CONFLICT (k1, k2) DO UPDATE SET a = excluded.a"
    update = "UPDATE t SET a = ?, b = b || ?, c = ? WHERE k1 = ? AND k2 = ?"
    inserted = [(k1, k2, _value(rng), _value(rng), _value(rng)) for k1, k2 in keys]
    distinct = list(dict.fromkeys(keys))
    updated = [(_value(rng), rng.choice(TEXTS), _value(rng), k1, k2) for k1, k2 in distinct]
    plain, bulk = _both([(insert, inserted), (update, updated)])
    assert plain == bulk
    assert bulk_rows(updated, 2) is not None  # the update did go over json_each


def test_rows_json_would_change_are_left_to_executemany():
    assert bulk_rows([("a\x00b", 1)], 0) is None  # NUL in text
    assert bulk_rows([(b"bytes", 1)], 0) is None
    assert bulk_rows([(math.inf, 1)], 0) is None and bulk_rows([(math.nan, 1)], 0) is None
    assert bulk_rows([(2**63, 1)], 0) is None
    assert bulk_rows([(True, 1)], 0) is None  # executemany binds 1, JSON would say true
    assert bulk_rows([("lone \ud800 surrogate", 1)], 0) is None  # not UTF-8: the driver refuses it per row
    assert bulk_rows([("x", 1), ("y", 1)], 1) is None  # two rows for one target row
    assert bulk_rows([("x", 1), ("y", 2)], 1) == '[["x",1],["y",2]]'


@pytest.mark.parametrize("sql", [
    "UPDATE t SET a = ? WHERE k1 = ? OR k2 = ?",  # OR: a row may meet two source rows
    "UPDATE t SET a = ? WHERE lease < ?",  # not an equality
    "UPDATE t SET a = ? WHERE k1 = ? AND lease <= ?",
    "UPDATE t SET a = ? WHERE k1 = ? AND k2 != ?",
    "UPDATE t SET a = ? WHERE k1 = ? AND k2 >= ?",
    "UPDATE t SET a = ? WHERE k1 IN (SELECT k1 FROM t WHERE a = ?)",
    "UPDATE t SET a = ? WHERE k1 = 'what?'",
    "DELETE FROM t WHERE k1 = ?",
    "UPDATE t SET a = ?",
])
def test_other_shapes_are_not_rewritten(sql):
    assert bulk_sql(sql) is None


def test_the_store_statements_have_bulk_forms():
    for sql in (_ANSWER_AND_VERDICT, _UPSERT_SQLITE, INSERT_PART):
        assert isinstance(sql, BulkSQL) and bulk_sql(sql) is not None, sql


def test_an_update_over_json_each_finds_its_rows_by_the_primary_key(tmp_path):
    store = RunStore(tmp_path / "s.sqlite")
    try:
        plan = " ".join(row[3] for row in store._db.execute("EXPLAIN QUERY PLAN " + bulk_sql(_ANSWER_AND_VERDICT)[0],
                                                             ("[]",)))
        assert "SEARCH samples USING INDEX" in plan and "SCAN samples" not in plan, plan
    finally:
        store.close()


def test_a_group_commit_of_many_runs_them_in_one_statement_and_indexes_them(tmp_path):
    store = RunStore(tmp_path / "s.sqlite")
    try:
        store.create_or_get_experiment("e", "bfcl", "m", "host", {})
        store.add_samples("e", [(f"s{i}", "g", {"question": f"q{i}"}) for i in range(40)])
        seen: list[str] = []
        store._db.set_trace_callback(seen.append)
        gate = threading.Event()
        # Held behind a first write, the 40 answers and verdicts queue up and commit as one group.
        store._writer.submit([("SELECT 1", ())], wait=False, on_done=lambda error: gate.wait(5))
        for i in range(40):
            ticket = store.record_rollout("e", f"s{i}", request={"messages": [{"role": "user", "content": f"q{i}"}]},
                                          response={"content": f"zebra{i}"}, latency_s=0.5, prompt_tokens=3,
                                          completion_tokens=4, attempts=1, wait=False)
            store.record_judgement("e", f"s{i}", prediction=f"zebra{i}", correct=i % 2 == 0,
                                   verdict={"valid": i % 2 == 0}, wait=False, after=ticket)
        gate.set()
        store.flush()
        store._db.set_trace_callback(None)
        assert sum("json_each" in sql and sql.startswith("UPDATE samples") for sql in seen) >= 1
        samples = {s.sample_id: s for s in store.samples("e")}
        assert [samples[f"s{i}"].correct for i in range(40)] == [i % 2 == 0 for i in range(40)]
        assert samples["s7"].response == {"content": "zebra7"} and samples["s7"].latency_s == 0.5
        assert store.progress("e")["correct"] == 20 and store.progress("e")["judged"] == 40  # the counts trigger ran per row
        assert search(store, "e", "zebra7") == ["s7"]
    finally:
        store.close()
