"""The run store's tables, and the steps that bring an older store up to date."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from evalui.stats.epochs import split_epoch
from evalui.store.counts import keep_counts, wide_token_counts
from evalui.store.light import light_columns
from evalui.store.parts import pack_stored_samples
from evalui.store.protocols import Connection
from evalui.store.search import search_index

# A migration step: SQL (statements split on ";"), or a function of the connection and the dialect.
Migration: TypeAlias = str | Callable[[Connection, str], None]

SCHEMA = """
CREATE TABLE IF NOT EXISTS experiments (
    exp_id TEXT PRIMARY KEY,
    benchmark TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    endpoint_host TEXT NOT NULL DEFAULT '',
    config TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'created',
    summary TEXT,
    out_dir TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
    exp_id TEXT NOT NULL REFERENCES experiments(exp_id) ON DELETE CASCADE,
    sample_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    grp TEXT NOT NULL DEFAULT '',
    stage TEXT NOT NULL DEFAULT 'init',
    payload TEXT NOT NULL DEFAULT '{}',
    request TEXT,
    response TEXT,
    prediction TEXT,
    latency_s REAL,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    correct INTEGER,
    verdict TEXT,
    error TEXT,
    updated_at REAL NOT NULL,
    PRIMARY KEY (exp_id, sample_id)
);
CREATE INDEX IF NOT EXISTS samples_by_stage ON samples(exp_id, stage);
"""

def epoch_column(db: Connection, dialect: str) -> None:
    """Migration step: the epoch as a column of its own, filled from the ids older stores kept it in
    (``x#e2``), with an index for the first epoch's samples (a resume adds the later ones from them)."""
    db.execute("ALTER TABLE samples ADD COLUMN epoch INTEGER NOT NULL DEFAULT 1")
    rows = db.execute("SELECT exp_id, sample_id FROM samples WHERE sample_id LIKE '%#e%'").fetchall()
    updates = [(split_epoch(row["sample_id"])[1], row["exp_id"], row["sample_id"]) for row in rows]
    updates = [u for u in updates if u[0] > 1]
    if updates:
        db.executemany("UPDATE samples SET epoch = ? WHERE exp_id = ? AND sample_id = ?", updates)
    db.execute("CREATE INDEX IF NOT EXISTS samples_by_epoch ON samples(exp_id, epoch, position)")


# Each step brings a store from version i to i + 1 (PRAGMA user_version on SQLite, the table
# evalui_schema on PostgreSQL; both run these same steps, see sql.py). Version 1 is the
# first wave's schema above; a store written by it opens and gains the later columns. A step is SQL
# (statements split on ";"), or a function ``step(db, dialect)`` for what differs between the two
# databases (triggers) or needs Python (rewriting stored JSON).
MIGRATIONS: tuple[Migration, ...] = (
    SCHEMA,
    # Who executes a run, and when it last showed life: a run whose process died is "interrupted".
    "ALTER TABLE experiments ADD COLUMN owner TEXT;"
    "ALTER TABLE experiments ADD COLUMN heartbeat_at REAL;",
    # Every step of a sample's call: messages, replies, tool calls and results, tokens, latency.
    "ALTER TABLE samples ADD COLUMN trajectory TEXT;",
    # Several workers share a run: a sample is claimed (leased) before it is asked, each worker
    # shows life in ``workers``, a cancel from any dashboard bumps ``cancel_seq``, and the worker
    # that judged the last sample is ``finished_by`` (it writes the summary and exports).
    "ALTER TABLE samples ADD COLUMN claimed_by TEXT;"
    "ALTER TABLE samples ADD COLUMN lease_until REAL;"
    "ALTER TABLE experiments ADD COLUMN cancel_seq INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE experiments ADD COLUMN finished_by TEXT;"
    "CREATE TABLE IF NOT EXISTS workers (exp_id TEXT NOT NULL, worker_id TEXT NOT NULL,"
    " heartbeat_at REAL NOT NULL, PRIMARY KEY (exp_id, worker_id));",
    # Per-run counts in the experiments row, kept by triggers (counts.py): a listing reads
    # one row per run.
    keep_counts,
    # Light reads (light.py): a sample list reads small columns, through indexes.
    light_columns,
    # Large repeated parts of samples (system prompts, function docs) stored once (parts.py).
    pack_stored_samples,
    # Token counts that a run's sum cannot overflow on PostgreSQL (counts.py).
    wide_token_counts,
    # The epoch as a column, not only a suffix of the id.
    epoch_column,
    # The full-text index, written with the samples (search.py), and an endpoint error's findings.
    search_index,
    "ALTER TABLE samples ADD COLUMN error_findings TEXT;",
    # The unfinished samples in run order (evalui.store.claims): a claim's pick reads them, not every
    # judged row before the first free one (2-5 ms a claim late in a run of 3,641; bench/RESULTS.md).
    "CREATE INDEX IF NOT EXISTS samples_unfinished ON samples(exp_id, position) WHERE stage IN ('init', 'rollout');",
)
