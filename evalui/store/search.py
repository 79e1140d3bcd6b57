"""Full-text search over a run's samples (prompts, replies, tool calls and tool output), served by the
store: SQLite FTS5, or a PostgreSQL ``tsvector`` (GIN-indexed) query.

The index lives in tables of its own, created on first use beside the store's (the store's schema
and migrations are not touched), and is filled lazily and incrementally: a search first compares
each sample's ``updated_at`` with the one indexed and re-indexes only the samples that changed (or
drops the ones gone). Search returns the matching sample ids of one run.

A search is a visitor's request, so its cost is bounded: a query has at most ``MAX_QUERY_CHARS``
characters and ``MAX_QUERY_TERMS`` words (more is refused with a message), runs at most
``EVALUI_SEARCH_DEADLINE_S`` seconds (5 by default; then it is stopped, with a message), and runs on a
read connection of its own (``RunStore.reader``), so no other read of the store waits for it.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from evalui.config import positive_number
from evalui.errors import InputError
from evalui.store.group_commit import Statement
from evalui.store.protocols import Connection, Row
from evalui.store.rows import Sample

if TYPE_CHECKING:
    from evalui.store.run_store import RunStore

# A read of the store's tables: (sql, params) to rows.
Read = Callable[[str, Sequence[Any]], Sequence[Row]]

MAX_BODY_CHARS = 200_000  # of one sample's text; PostgreSQL's tsvector is capped at 1 MB
# Each word becomes one term of the match, and a term costs a pass over the index (a one-letter
# prefix most of all): tens of thousands of one-letter words ran for minutes (bench/RESULTS.md),
# and the 1 MiB request-body cap allows ~500,000. 32 words and 500 characters are far beyond anything a person types into a search box.
MAX_QUERY_TERMS = 32
MAX_QUERY_CHARS = 500
# Within the caps a search can still take long (30 one-letter prefixes over 400 samples of 20,000
# random words: 31 s on SQLite), so it is also stopped at a deadline.
SEARCH_DEADLINE_S = 5.0
SEARCH_DEADLINE_ENV = "EVALUI_SEARCH_DEADLINE_S"
# SQLite virtual-machine steps between two looks at the clock: a small fraction of a millisecond.
# FTS5 reads its index through such steps too, so a long match stops soon after its deadline.
_PROGRESS_STEPS = 1_000
_QUERY_CANCELED = "57014"  # PostgreSQL's SQLSTATE for a statement stopped by statement_timeout
_INDEX_LOCK = 7_261_002  # PostgreSQL advisory lock: two processes creating the index at once
_ready: weakref.WeakSet[RunStore] = weakref.WeakSet()  # stores whose index tables exist (checked once per store)

_SQLITE_TABLES = [
    "CREATE TABLE IF NOT EXISTS sample_text_state (doc INTEGER PRIMARY KEY, exp_id TEXT NOT NULL,"
    " sample_id TEXT NOT NULL, updated_at REAL, UNIQUE (exp_id, sample_id))",
    "CREATE VIRTUAL TABLE IF NOT EXISTS sample_text USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')",
]
_POSTGRES_TABLES = [
    f"SELECT pg_advisory_xact_lock({_INDEX_LOCK})",
    "CREATE TABLE IF NOT EXISTS sample_search (exp_id TEXT NOT NULL, sample_id TEXT NOT NULL, updated_at REAL,"
    " body TEXT NOT NULL, PRIMARY KEY (exp_id, sample_id))",
    "CREATE INDEX IF NOT EXISTS sample_search_body ON sample_search USING GIN (to_tsvector('simple', body))",
]


class SearchRefused(InputError):
    """A search over the caps, or one stopped at its deadline: the person narrows it and searches again."""


def search_deadline_s() -> float:
    """How long one search may run: ``EVALUI_SEARCH_DEADLINE_S``, else 5 s."""
    return positive_number(SEARCH_DEADLINE_ENV, SEARCH_DEADLINE_S)


# The store's own connection and writer: the index is written in the store's transactions, so a
# search sees exactly what the store has committed. (Private members, used here only.)
def _read(store: RunStore, sql: str, params: Sequence[Any] = ()) -> Sequence[Row]:
    return store._read(sql, params)


def _write(store: RunStore, statements: list[Statement]) -> None:
    store._writer.submit(statements, wait=True)


def _strings(value: object, out: list[str], depth: int = 0) -> None:
    if depth > 20 or value is None:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in ("tools", "image_url", "extra_body"):  # function docs repeat in every sample; bytes
                _strings(item, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _strings(item, out, depth + 1)
    elif isinstance(value, (int, float)):
        return
    else:
        out.append(str(value))


def sample_text(sample: Sample) -> str:
    """What a search looks in: the id and group, the prompt, every step's messages, replies, tool calls and
    results, the answer read from it, and the endpoint's error."""
    out = [sample.sample_id, sample.group or ""]
    request = sample.request if isinstance(sample.request, dict) else {}
    _strings(request.get("messages"), out)
    _strings(sample.trajectory if sample.trajectory else sample.response, out)
    prediction = sample.prediction
    out.append(prediction if isinstance(prediction, str) else json.dumps(prediction, ensure_ascii=False, default=str))
    out.append(sample.error or "")
    return "\n".join(s for s in out if s)[:MAX_BODY_CHARS]


def _ensure(store: RunStore) -> None:
    if store in _ready:
        return
    _write(store, [(sql, ()) for sql in (_POSTGRES_TABLES if store.dialect == "postgresql" else _SQLITE_TABLES)])
    _ready.add(store)


def _indexed(store: RunStore, exp_id: str, read: Read) -> dict[str, float | None]:
    table = "sample_search" if store.dialect == "postgresql" else "sample_text_state"
    return {r["sample_id"]: r["updated_at"] for r in
            read(f"SELECT sample_id, updated_at FROM {table} WHERE exp_id = ?", (exp_id,))}


def _samples(store: RunStore, exp_id: str, wanted: set[str]) -> list[Sample]:
    """The stored samples to index, read by id when they are not most of the run."""
    if hasattr(store, "samples_by_id"):
        return list(store.samples_by_id(exp_id, sorted(wanted)).values())
    return [s for s in store.samples(exp_id) if s.sample_id in wanted]


def refresh(store: RunStore, exp_id: str, db: Connection | None = None) -> int:
    """Bring the run's index up to date with the store; returns how many samples were (re)indexed.
    ``db``: a connection of ``store.reader()`` to compare on, instead of the store's own (and its lock)."""
    _ensure(store)

    def read(sql: str, params: Sequence[Any] = ()) -> Sequence[Row]:
        if db is None:
            return _read(store, sql, params)
        rows = db.execute(sql, params).fetchall()
        db.rollback()  # as the store's reads: no PostgreSQL transaction holds the tables while the writer indexes
        return rows

    current = {r["sample_id"]: r["updated_at"] for r in
               read("SELECT sample_id, updated_at FROM samples WHERE exp_id = ?", (exp_id,))}
    indexed = _indexed(store, exp_id, read)
    stale = {i for i, at in current.items() if i not in indexed or indexed[i] != at}
    gone = [i for i in indexed if i not in current]
    if not stale and not gone:
        return 0
    samples = _samples(store, exp_id, stale)
    if store.dialect == "postgresql":
        statements: list[Statement] = [("DELETE FROM sample_search WHERE exp_id = ? AND sample_id = ?", (exp_id, i)) for i in gone]
        statements += [("INSERT INTO sample_search (exp_id, sample_id, updated_at, body) VALUES (?, ?, ?, ?)"
                        " ON CONFLICT (exp_id, sample_id) DO UPDATE SET updated_at = excluded.updated_at,"
                        " body = excluded.body",
                        (exp_id, s.sample_id, s.updated_at, sample_text(s).replace("\x00", ""))) for s in samples]
    else:
        doc = "(SELECT doc FROM sample_text_state WHERE exp_id = ? AND sample_id = ?)"
        statements = []
        for sample_id in [*gone, *(s.sample_id for s in samples)]:
            statements += [(f"DELETE FROM sample_text WHERE rowid = {doc}", (exp_id, sample_id)),
                           ("DELETE FROM sample_text_state WHERE exp_id = ? AND sample_id = ?", (exp_id, sample_id))]
        for s in samples:
            statements += [("INSERT INTO sample_text_state (exp_id, sample_id, updated_at) VALUES (?, ?, ?)",
                            (exp_id, s.sample_id, s.updated_at)),
                           (f"INSERT INTO sample_text (rowid, body) VALUES ({doc}, ?)",
                            (exp_id, s.sample_id, sample_text(s)))]
    _write(store, statements)
    return len(samples)


def _phrases(query: str) -> list[list[str]]:
    """Each whitespace-separated piece of the query as the words it holds (letters and digits only:
    nothing a user types reaches the query language as syntax). ``simple_python_4`` is one phrase."""
    return [words for piece in (query or "").split() if (words := re.findall(r"[^\W_]+", piece))]


def checked_phrases(query: str) -> list[list[str]]:
    """``_phrases`` of a query within the caps; SearchRefused, saying which cap, for one over them."""
    text = (query or "").strip()
    if len(text) > MAX_QUERY_CHARS:  # before any parsing: a 1 MiB query is refused at the cost of its length
        raise SearchRefused(f"A search is at most {MAX_QUERY_CHARS} characters; this one has {len(text):,}."
                            " Search for fewer words.")
    phrases = _phrases(text)
    words = sum(len(p) for p in phrases)
    if words > MAX_QUERY_TERMS:
        raise SearchRefused(f"A search is at most {MAX_QUERY_TERMS} words; this one has {words}"
                            " (each of letters or digits, as in simple_python_4: three). Search for fewer words.")
    return phrases


def _too_slow(seconds: float) -> SearchRefused:
    return SearchRefused(f"The search took too long (stopped after {seconds:g} s); narrow it: fewer words, or"
                         " longer ones (a word of one or two letters matches a great many).")


def search(store: RunStore, exp_id: str, query: str) -> list[str] | None:
    """Ids of the run's samples holding every piece of ``query`` (a piece's words in a row, its last word
    also as a prefix; case-insensitive, and accent-insensitive on SQLite), in stored order; None for an
    empty query (no search). SearchRefused for a query over the caps or a search past its deadline."""
    phrases = checked_phrases(query)
    if not phrases:
        return None
    seconds = search_deadline_s()
    with store.reader() as db:
        # The deadline is the match's alone: indexing what changed is the store's work, bounded by the run.
        refresh(store, exp_id, db)
        if store.dialect == "postgresql":
            rows = _postgres_match(db, exp_id, phrases, seconds)
        else:
            # A SQLite store's reader is a sqlite3.Connection (evalui.store.sql.open_sqlite_reader).
            rows = _sqlite_match(cast(sqlite3.Connection, db), exp_id, phrases, seconds)
    return [r["sample_id"] for r in rows]


def _postgres_match(db: Connection, exp_id: str, phrases: list[list[str]], seconds: float) -> list[Row]:
    try:
        # LOCAL: the timeout ends with this transaction, and the connection goes back to the pool without it.
        db.execute(f"SET LOCAL statement_timeout = {max(1, round(seconds * 1000))}")
        # The match alone, then the stored order: joined, a fresh table's plan re-ran the match for each of
        # the run's samples (93 s for 50 long ones, 2 s apart).
        hits = {r["sample_id"] for r in db.execute(
            "SELECT sample_id FROM sample_search WHERE exp_id = ? AND to_tsvector('simple', body) @@"
            " to_tsquery('simple', ?)",
            (exp_id, " & ".join("(" + " <-> ".join(w.lower() for w in p) + ":*)" for p in phrases)))}
        return [r for r in db.execute("SELECT sample_id FROM samples WHERE exp_id = ? ORDER BY position", (exp_id,))
                if r["sample_id"] in hits]
    except Exception as exc:
        if getattr(exc, "sqlstate", None) == _QUERY_CANCELED:
            raise _too_slow(seconds) from None
        raise


def _sqlite_match(db: sqlite3.Connection, exp_id: str, phrases: list[list[str]], seconds: float) -> list[Row]:
    match = " AND ".join('"' + " ".join(p) + '"*' for p in phrases)
    deadline = time.monotonic() + seconds
    db.set_progress_handler(lambda: time.monotonic() > deadline, _PROGRESS_STEPS)
    try:
        # In three plain reads: joined in one query, SQLite's planner re-ran the MATCH per row (seconds).
        docs = {r["rowid"] for r in db.execute("SELECT rowid FROM sample_text WHERE sample_text MATCH ?", (match,))}
        hits = {r["sample_id"] for r in db.execute("SELECT doc, sample_id FROM sample_text_state WHERE exp_id = ?",
                                                   (exp_id,)) if r["doc"] in docs}
        return [r for r in db.execute("SELECT sample_id FROM samples WHERE exp_id = ? ORDER BY position", (exp_id,))
                if r["sample_id"] in hits]
    except sqlite3.OperationalError as exc:
        if str(exc) == "interrupted" and time.monotonic() > deadline:
            raise _too_slow(seconds) from None
        raise
    finally:
        db.set_progress_handler(None, 0)
