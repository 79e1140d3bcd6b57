"""A store written the old way (plain JSON in every column, schema version 4, no counts, no light
columns, no parts) opens with this evalui: it migrates, every sample reads back identical, its
counts and light rows are filled, a single-turn BFCL sample then takes at most 2 KB of row, and
the run's exports are byte-identical to those of the same run written by this evalui."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sqlite3

import pytest
from peers import settings_for
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.parts import PREFIX, REFERENCE
from evalui.store.run_store import MIGRATIONS, RunStore
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, error

OLD_VERSION = 4  # the schema before per-run counts, light columns and parts
OLD_EXPERIMENT_COLUMNS = ("exp_id", "benchmark", "model", "endpoint_host", "config", "status", "summary", "out_dir",
                          "created_at", "updated_at", "owner", "heartbeat_at", "cancel_seq", "finished_by")
OLD_SAMPLE_COLUMNS = ("exp_id", "sample_id", "position", "grp", "stage", "payload", "request", "response",
                      "prediction", "latency_s", "prompt_tokens", "completion_tokens", "attempts", "correct", "verdict",
                      "error", "updated_at", "trajectory", "claimed_by", "lease_until")
SAMPLES = 220
TWO_KB = 2048
TIMING = ("duration_s",)


def _row_bytes(path, exp_id: str) -> float:
    """Mean bytes of a sample's row: every column's stored text (numbers as written)."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT * FROM samples WHERE exp_id = ?", (exp_id,)).fetchall()
    return sum(len(str(v).encode()) for row in rows for v in row if v is not None) / len(rows)


def _plain(text, bodies: dict[str, str]):
    """A column as the old code wrote it: the JSON with every part in place."""
    if isinstance(text, str) and text.startswith(PREFIX):
        return REFERENCE.sub(lambda m: bodies[m.group(1)], text[len(PREFIX):])
    return text


def _write_old_store(new_path, old_path) -> None:
    old = sqlite3.connect(old_path)
    for step in MIGRATIONS[:OLD_VERSION]:
        old.executescript(step)
    old.execute(f"PRAGMA user_version = {OLD_VERSION}")
    with sqlite3.connect(new_path) as new:
        new.row_factory = sqlite3.Row
        bodies = {row["sha256"]: row["body"] for row in new.execute("SELECT sha256, body FROM parts")}
        for row in new.execute(f"SELECT {', '.join(OLD_EXPERIMENT_COLUMNS)} FROM experiments"):
            old.execute(f"INSERT INTO experiments ({', '.join(OLD_EXPERIMENT_COLUMNS)}) VALUES"
                        f" ({', '.join('?' * len(OLD_EXPERIMENT_COLUMNS))})", tuple(row))
        for row in new.execute(f"SELECT {', '.join(OLD_SAMPLE_COLUMNS)} FROM samples"):
            old.execute(f"INSERT INTO samples ({', '.join(OLD_SAMPLE_COLUMNS)}) VALUES"
                        f" ({', '.join('?' * len(OLD_SAMPLE_COLUMNS))})", tuple(_plain(v, bodies) for v in row))
    old.commit()
    old.close()


def as_old(samples: list) -> list:
    """The samples as an old store holds them: an endpoint error's findings were not kept in its row then
    (the next summary stores them); every other field is the same."""
    return [s if s.stage == "judged" else dataclasses.replace(s, findings=None) for s in samples]


def as_old_rows(rows: list) -> list:
    return [r if r.stage == "judged" else dataclasses.replace(r, findings=None) for r in rows]


def _exports(folder) -> dict[str, bytes]:
    found = {}
    for path in sorted(folder.iterdir()):
        if path.suffix == ".html" or path.name == "plotly.min.js":
            continue  # plotly writes a fresh random div id into each chart: never identical twice
        data = path.read_bytes()
        if path.name == "summary.json":
            summary = json.loads(data)
            for key in TIMING:
                summary.pop(key, None)
            data = json.dumps(summary, sort_keys=True).encode()
        found[path.name] = data
    return found


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A 220-sample simple_python run in prompt mode written by this evalui, with its exports."""
    folder = tmp_path_factory.mktemp("written")
    saved = os.environ.get("EVALUI_DATA_DIR")
    os.environ["EVALUI_DATA_DIR"] = str(folder / "data")
    oracle = BfclOracle(["simple_python"])

    def script(body, n):
        entry = oracle.entry_for(body)
        if entry.id.endswith("_7"):
            return error(400, "scripted refusal")
        return oracle.wrong_reply(body) if entry.id.endswith(("_3", "_5")) else oracle.gold_reply(body)

    new_path, out = folder / "new.sqlite", folder / "out"
    store = RunStore(new_path)
    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=SAMPLES, mode="prompt"),
                                   settings, exp_id="old-and-new", out=out)
        lifecycle.execute(store, exp_id, settings, concurrency=8)
    lifecycle.export(store, exp_id)
    record = {"path": new_path, "out": out, "exp_id": exp_id, "samples": store.samples(exp_id),
              "counts": store.progress(exp_id), "rows": store.sample_rows(exp_id), "exports": _exports(out)}
    store.close()
    yield record
    if saved is None:
        os.environ.pop("EVALUI_DATA_DIR", None)
    else:
        os.environ["EVALUI_DATA_DIR"] = saved


def test_an_old_store_migrates_reads_back_identical_and_exports_the_same_bytes(written, tmp_path):
    new_path, out, exp_id = written["path"], written["out"], written["exp_id"]
    assert written["counts"]["total"] == SAMPLES and written["counts"]["errors"] > 0
    assert _row_bytes(new_path, exp_id) <= TWO_KB

    old_path = tmp_path / "old.sqlite"
    _write_old_store(new_path, old_path)
    assert _row_bytes(old_path, exp_id) > 2 * TWO_KB  # the old way: every sample holds its prompt twice
    with sqlite3.connect(old_path) as db:
        old_texts = {r[0]: r[1:] for r in db.execute("SELECT sample_id, request, trajectory FROM samples")}

    migrated = RunStore(old_path)
    assert migrated.schema_version == len(MIGRATIONS)
    assert migrated.samples(exp_id) == as_old(written["samples"])  # every field of every sample
    assert migrated.progress(exp_id) == written["counts"] and migrated.sample_rows(exp_id) == as_old_rows(written["rows"])
    assert _row_bytes(old_path, exp_id) <= TWO_KB
    with sqlite3.connect(old_path) as db:  # each column joins back to the very text the old code wrote
        bodies = dict(db.execute("SELECT sha256, body FROM parts"))
        for sample_id, request, trajectory in db.execute("SELECT sample_id, request, trajectory FROM samples"):
            assert (_plain(request, bodies), _plain(trajectory, bodies)) == old_texts[sample_id]
    _assert_same_exports(migrated, exp_id, out, written["exports"])
    migrated.close()
    assert RunStore(old_path).schema_version == len(MIGRATIONS)  # reopening runs no step twice


def test_an_old_postgresql_store_migrates_and_reads_back_identical(written, pg_url):
    from evalui.store.sql import PostgresConnection, _statements

    old = PostgresConnection(pg_url)
    for step in MIGRATIONS[:OLD_VERSION]:
        for statement in _statements(step):
            old.execute(statement)
    old.execute("CREATE TABLE evalui_schema (version INTEGER NOT NULL)")
    old.execute("INSERT INTO evalui_schema (version) VALUES (?)", (OLD_VERSION,))
    with sqlite3.connect(written["path"]) as new:
        new.row_factory = sqlite3.Row
        bodies = {row["sha256"]: row["body"] for row in new.execute("SELECT sha256, body FROM parts")}
        for table, columns in (("experiments", OLD_EXPERIMENT_COLUMNS), ("samples", OLD_SAMPLE_COLUMNS)):
            rows = [tuple(_plain(v, bodies) for v in row) for row in new.execute(f"SELECT {', '.join(columns)} FROM {table}")]
            old.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)
    old.commit()
    old.close()

    migrated = RunStore(url=pg_url)
    exp_id = written["exp_id"]
    assert migrated.schema_version == len(MIGRATIONS)
    assert migrated.samples(exp_id) == as_old(written["samples"])
    assert migrated.progress(exp_id) == written["counts"] and migrated.sample_rows(exp_id) == as_old_rows(written["rows"])
    _assert_same_exports(migrated, exp_id, written["out"], written["exports"])
    migrated.close()


def _assert_same_exports(store: RunStore, exp_id: str, out, exported: dict) -> None:
    shutil.rmtree(out)
    lifecycle.export(store, exp_id)
    again = _exports(out)
    assert set(again) == set(exported) and "samples.jsonl" in again and "summary.json" in again
    assert any(name.endswith("_result.json") for name in again)
    for name in exported:
        assert again[name] == exported[name], f"{name} differs after the migration"
