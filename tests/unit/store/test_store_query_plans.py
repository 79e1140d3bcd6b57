"""Every query of the light reads, the viewer's list (filtered, searched, sorted), the listing and the
comparison's reads searches an index on SQLite: none scans the samples table, and a page in run or group
order needs no sort."""

from __future__ import annotations

import pytest

from evalui.store.light import ANY_INVALID
from evalui.store.run_store import RunStore


def _store_with_runs(path) -> RunStore:
    store = RunStore(path)
    for run in ("r1", "r2"):
        store.create_or_get_experiment(run, "echo", "m", "h", {})
        store.add_samples(run, [(f"s{i}", f"g{i % 3}", {"i": i}) for i in range(60)])
        for i in range(50):
            if i % 10 == 9:
                store.record_error(run, f"s{i}", request={}, error="boom", attempts=1)
                continue
            store.record_rollout(run, f"s{i}", request={}, response={}, latency_s=i / 10, prompt_tokens=i,
                                 completion_tokens=1, attempts=1)
            store.record_judgement(run, f"s{i}", prediction=None, correct=i % 2 == 0,
                                   verdict={"error_type": "wrong_value", "findings": [
                                       {"scanner": "empty_reply", "severity": "invalid"}] if i % 7 == 0 else []})
    return store


def _plans(store: RunStore, statements: list[str]) -> dict[str, list[str]]:
    return {sql: [row[3] for row in store._db.execute(f"EXPLAIN QUERY PLAN {sql}")] for sql in statements}


def _traced(store: RunStore, read) -> list[str]:
    """The SELECTs ``read`` ran, on the store's connection or on a read connection of its own (``reader``)."""
    seen: list[str] = []
    opened = []
    open_reader = store._open_reader

    def traced_reader():
        db = open_reader()
        db.set_trace_callback(seen.append)
        opened.append(db)
        return db

    store._db.set_trace_callback(seen.append)
    store._open_reader = traced_reader
    try:
        read()
    finally:
        store._db.set_trace_callback(None)
        store._open_reader = open_reader
        for db in opened:
            db.set_trace_callback(None)
    return [sql for sql in seen if sql.lstrip().upper().startswith("SELECT")]


READS = {
    "first page": lambda s: s.sample_page("r1", 0, 20),
    "a later page": lambda s: s.sample_page("r1", 20, 20),
    "correct ones": lambda s: s.sample_page("r1", 0, 20, verdict="correct"),
    "errors": lambda s: s.sample_page("r1", 0, 20, verdict="error"),
    "pending": lambda s: s.sample_page("r1", 0, 20, verdict="pending"),
    "a group": lambda s: s.sample_page("r1", 0, 5, group="g1"),
    "an error type": lambda s: s.sample_page("r1", 0, 5, error_type="wrong_value"),
    "invalid ones": lambda s: s.sample_page("r1", 0, 5, finding=ANY_INVALID),
    "a scanner": lambda s: s.sample_page("r1", 0, 5, finding="empty_reply"),
    "slowest": lambda s: s.sample_page("r1", 0, 5, order_by="latency", descending=True),
    "most tokens": lambda s: s.sample_page("r1", 0, 5, order_by="tokens", descending=True),
    "by group": lambda s: s.sample_page("r1", 0, 5, order_by="group"),
    "facets": lambda s: s.sample_facets("r1"),
    "the viewer's page": lambda s: s.sample_view("r1", limit=50),
    "the viewer's page holding a sample": lambda s: s.sample_view("r1", column="verdict", offset=None, limit=50,
                                                                  selected="s30"),
    "the viewer's search": lambda s: s.sample_view("r1", text="boom", verdict="error", limit=50),
    "one sample": lambda s: s.sample("r1", "s7"),
    "some samples": lambda s: s.samples_by_id("r1", ["s1", "s2"]),
    "progress": lambda s: s.progress("r1"),
    "listing": lambda s: s.experiments(),
    "judged outcomes": lambda s: s.judged_outcomes(["r1", "r2"]),
    "a run's epochs": lambda s: s.max_epoch("r1"),
    "a run's version": lambda s: s.run_version("r1"),
    "a benchmark's version": lambda s: s.benchmark_version("echo"),
}
UNSORTED = ("first page", "a later page", "a group", "by group", "slowest", "most tokens")


@pytest.mark.unit
@pytest.mark.parametrize("name", list(READS))
def test_each_read_searches_an_index(tmp_path, name):
    store = _store_with_runs(tmp_path / "plans.sqlite")
    statements = _traced(store, lambda: READS[name](store))
    assert statements, f"{name}: no query was traced"
    for sql, plan in _plans(store, statements).items():
        text = " | ".join(plan)
        assert not any(step.startswith("SCAN samples") for step in plan), f"{name}: {sql}\n  {text}"
        if "FROM samples" in sql and "GROUP BY" not in sql:
            assert any(step.startswith("SEARCH samples USING") for step in plan), f"{name}: {sql}\n  {text}"
        if name in UNSORTED and "ORDER BY" in sql:
            assert "TEMP B-TREE" not in text, f"{name} sorts: {sql}\n  {text}"
    store.close()
