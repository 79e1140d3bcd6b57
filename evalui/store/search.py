"""Full-text search over a run's samples (prompts, replies, tool calls and tool output, the endpoint's
error, the prediction and the checker's reason), served by the store: SQLite FTS5, or a PostgreSQL
``tsvector`` (GIN-indexed) query.

The index is written with the samples, in the same transactions (so a search sees exactly what the
store has committed, and a first search builds nothing): each write of a sample upserts the document
of the part it changes, one row of ``search_docs`` per (run, sample, part):

- ``sample``: its id and group (``add_samples``);
- ``call``: the prompt's messages, every step's replies, tool calls and results, and the endpoint's
  error (``record_rollout``, ``record_error``);
- ``verdict``: the prediction and the checker's reason (``record_judgement``).

A sample matches a query when each of its pieces is found in one of its parts. Deleting a sample drops
its documents (a trigger on SQLite, a cascading foreign key on PostgreSQL). The migration step
``search_index`` creates the tables and indexes every stored sample once.

A search is a visitor's request, so its cost is bounded: a query has at most ``MAX_QUERY_CHARS``
characters and ``MAX_QUERY_TERMS`` words (more is refused with a message), runs at most
``EVALUI_SEARCH_DEADLINE_S`` seconds (5 by default; then it is stopped, with a message), and runs on a
read connection of its own (``RunStore.reader``), so no other read of the store waits for it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import time
from collections.abc import Sequence
from typing import Any, cast

from evalui import settings
from evalui.core.record import reason_of
from evalui.errors import InputError
from evalui.store.bulk import BulkSQL
from evalui.store.group_commit import Statement
from evalui.store.parts import PartCache
from evalui.store.protocols import Connection, Row
from evalui.store.rows import _loads
from evalui.store.store_core import StoreCore

MAX_BODY_CHARS = 200_000  # of one part's text; PostgreSQL's tsvector is capped at 1 MB
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

SAMPLE, CALL, VERDICT = "sample", "call", "verdict"

_UPSERT_SQLITE = BulkSQL("INSERT INTO search_docs (exp_id, sample_id, part, body) VALUES (?, ?, ?, ?)"
                          " ON CONFLICT (exp_id, sample_id, part) DO UPDATE SET body = excluded.body")
_UPSERT_POSTGRES = ("INSERT INTO search_docs (exp_id, sample_id, part, words) VALUES (?, ?, ?, to_tsvector('simple', ?))"
                    " ON CONFLICT (exp_id, sample_id, part) DO UPDATE SET words = excluded.words")

# The old index (built on first use) is dropped: this one is written with the samples.
_SQLITE_TABLES = [
    "DROP TABLE IF EXISTS sample_text",
    "DROP TABLE IF EXISTS sample_text_state",
    "DROP TRIGGER IF EXISTS samples_unsearched",
    "DROP TABLE IF EXISTS search_text",
    "DROP TABLE IF EXISTS search_docs",
    "CREATE TABLE search_docs (doc INTEGER PRIMARY KEY, exp_id TEXT NOT NULL, sample_id TEXT NOT NULL,"
    " part TEXT NOT NULL, body TEXT NOT NULL, UNIQUE (exp_id, sample_id, part))",
    # External content: the text is kept once, in search_docs; FTS5 keeps only its index, by triggers.
    "CREATE VIRTUAL TABLE search_text USING fts5(body, content = 'search_docs', content_rowid = 'doc',"
    " tokenize = 'unicode61 remove_diacritics 2')",
    "CREATE TRIGGER search_docs_added AFTER INSERT ON search_docs BEGIN"
    " INSERT INTO search_text (rowid, body) VALUES (NEW.doc, NEW.body); END",
    "CREATE TRIGGER search_docs_gone AFTER DELETE ON search_docs BEGIN"
    " INSERT INTO search_text (search_text, rowid, body) VALUES ('delete', OLD.doc, OLD.body); END",
    "CREATE TRIGGER search_docs_changed AFTER UPDATE ON search_docs BEGIN"
    " INSERT INTO search_text (search_text, rowid, body) VALUES ('delete', OLD.doc, OLD.body);"
    " INSERT INTO search_text (rowid, body) VALUES (NEW.doc, NEW.body); END",
    "CREATE TRIGGER samples_unsearched AFTER DELETE ON samples BEGIN"
    " DELETE FROM search_docs WHERE exp_id = OLD.exp_id AND sample_id = OLD.sample_id; END",
]
_POSTGRES_TABLES = [
    "DROP TABLE IF EXISTS sample_search",
    "DROP TABLE IF EXISTS search_docs",
    "CREATE TABLE search_docs (exp_id TEXT NOT NULL, sample_id TEXT NOT NULL, part TEXT NOT NULL,"
    " words TSVECTOR NOT NULL, PRIMARY KEY (exp_id, sample_id, part),"
    " FOREIGN KEY (exp_id, sample_id) REFERENCES samples (exp_id, sample_id) ON DELETE CASCADE)",
    "CREATE INDEX search_docs_words ON search_docs USING GIN (words)",
]


class SearchRefused(InputError):
    """A search over the caps, or one stopped at its deadline: the person narrows it and searches again."""


def search_deadline_s() -> float:
    """How long one search may run: ``EVALUI_SEARCH_DEADLINE_S``, else 5 s."""
    return float(settings.read("search_deadline_s"))


# What each part holds ----------------------------------------------------------------------------
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
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        # A trajectory's step, as stored: its fields are the keys of the JSON the migration step reads
        # (its repr here was slow, and held the text escaped: "\\n" glued to the next word).
        for item in dataclasses.fields(value):
            if item.name not in ("tools", "image_url", "extra_body"):
                _strings(getattr(value, item.name), out, depth + 1)
    else:
        out.append(str(value))


def _joined(out: list[str]) -> str:
    # Each text once: every step of a call carries the conversation so far, which would make a part's
    # size (and the index's work) grow with the square of its steps.
    return "\n".join(s for s in dict.fromkeys(out) if s)[:MAX_BODY_CHARS]


def sample_part(sample_id: str, group: str | None) -> str:
    return _joined([sample_id, group or ""])


def call_part(request: object, response: object, trajectory: object, error: str | None) -> str:
    """The prompt's messages, every step's messages, replies, tool calls and results (else the reply),
    and the endpoint's error."""
    out: list[str] = []
    _strings(request.get("messages") if isinstance(request, dict) else None, out)
    _strings(trajectory if trajectory else response, out)
    out.append(error or "")
    return _joined(out)


def _json_text(value: object) -> str:
    # orjson: this runs for every verdict, on the run's event loop; its compact separators change
    # no word of the document. json takes what orjson refuses (keys that are not strings, huge ints).
    try:
        import orjson

        return orjson.dumps(value, default=str).decode()
    except (ImportError, TypeError):
        return json.dumps(value, ensure_ascii=False, default=str)


def verdict_part(prediction: object, verdict: object) -> str:
    """The answer read from the reply, and the checker's reason (as the exported score explains it)."""
    text = prediction if isinstance(prediction, str) else _json_text(prediction)
    reason = reason_of(verdict if isinstance(verdict, dict) else None) or ""
    return _joined([text if prediction is not None else "", reason])


def index_statement(dialect: str, exp_id: str, sample_id: str, part: str, body: str, *,
                    replace: bool = True) -> Statement:
    """The write that (re)indexes one part of a sample, for the same transaction as the sample's write;
    ``replace=False``: a part already indexed is kept (a sample registered again keeps its id and group)."""
    if dialect == "postgresql":
        # Lower-cased here: PostgreSQL lower-cases only ASCII under the C locale, and the query is lower-cased in Python.
        sql, params = _UPSERT_POSTGRES, (exp_id, sample_id, part, body.replace("\x00", "").lower())
    else:
        sql, params = _UPSERT_SQLITE, (exp_id, sample_id, part, body)
    # Keyed "index": the group commit runs a group's documents together, after its row updates.
    return (sql if replace else sql[:sql.index(" DO UPDATE")] + " DO NOTHING"), params, ("index", part)


def search_index(db: Connection, dialect: str) -> None:
    """Migration step: the index's tables, and every stored sample indexed once, run by run."""
    for statement in _POSTGRES_TABLES if dialect == "postgresql" else _SQLITE_TABLES:
        db.execute(statement)
    parts = PartCache(lambda sql, params: db.execute(sql, tuple(params)).fetchall())
    runs = [row[0] for row in db.execute("SELECT DISTINCT exp_id FROM samples").fetchall()]
    for exp_id in runs:
        rows = db.execute("SELECT sample_id, grp, request, response, trajectory, prediction, verdict, error, stage"
                          " FROM samples WHERE exp_id = ?", (exp_id,)).fetchall()
        statements = []
        for row in rows:
            sample_id = row["sample_id"]
            statements.append(index_statement(dialect, exp_id, sample_id, SAMPLE, sample_part(sample_id, row["grp"])))
            if row["request"] is not None or row["error"] is not None:
                statements.append(index_statement(dialect, exp_id, sample_id, CALL, call_part(
                    parts.load(row["request"]), parts.load(row["response"]), parts.load(row["trajectory"]),
                    row["error"])))
            if row["stage"] == "judged":
                statements.append(index_statement(dialect, exp_id, sample_id, VERDICT, verdict_part(
                    _loads(row["prediction"]), _loads(row["verdict"]))))
        if statements:
            db.executemany(statements[0][0], [params for _, params, *_ in statements])


# Queries -----------------------------------------------------------------------------------------
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


def matching_ids(dialect: str, exp_id: str, phrases: list[list[str]]) -> tuple[str, list[Any]]:
    """SQL (and its parameters) of the ids of the run's samples holding every phrase (a phrase's words in
    a row, its last word also as a prefix), each phrase in one of the sample's parts; for ``IN (...)``."""
    selects, params = [], []
    for phrase in phrases:
        if dialect == "postgresql":
            selects.append("SELECT sample_id FROM search_docs WHERE exp_id = ? AND words @@ to_tsquery('simple', ?)")
            params += [exp_id, "(" + " <-> ".join(w.lower() for w in phrase) + ":*)"]
        else:
            # +doc: the run's documents are read by their (exp_id, ...) index and looked up in the match's
            # set, which SQLite builds once; it never re-runs the match per row.
            selects.append("SELECT sample_id FROM search_docs WHERE exp_id = ? AND +doc IN"
                           " (SELECT rowid FROM search_text WHERE search_text MATCH ?)")
            params += [exp_id, '"' + " ".join(phrase) + '"*']
    return " INTERSECT ".join(selects), params


def _too_slow(seconds: float) -> SearchRefused:
    return SearchRefused(f"The search took too long (stopped after {seconds:g} s); narrow it: fewer words, or"
                         " longer ones (a word of one or two letters matches a great many).")


def bounded_read(store: StoreCore, sql: str, params: Sequence[Any]) -> list[Row]:
    """Rows of a read that holds a search's match, on a read connection of its own, within the deadline."""
    seconds = search_deadline_s()
    with store.reader() as db:
        if store.dialect == "postgresql":
            return _postgres_match(db, sql, params, seconds)
        # A SQLite store's reader is a sqlite3.Connection (evalui.store.sql.open_sqlite_reader).
        return _sqlite_match(cast(sqlite3.Connection, db), sql, params, seconds)


def search(store: StoreCore, exp_id: str, query: str) -> list[str] | None:
    """Ids of the run's samples holding every piece of ``query`` (a piece's words in a row, its last word
    also as a prefix; case-insensitive, and accent-insensitive on SQLite), in stored order; None for an
    empty query (no search). SearchRefused for a query over the caps or a search past its deadline."""
    phrases = checked_phrases(query)
    if not phrases:
        return None
    found, params = matching_ids(store.dialect, exp_id, phrases)
    rows = bounded_read(store, f"SELECT sample_id FROM samples WHERE exp_id = ? AND sample_id IN ({found})"
                        " ORDER BY position", [exp_id, *params])
    return [r["sample_id"] for r in rows]


def _postgres_match(db: Connection, sql: str, params: Sequence[Any], seconds: float) -> list[Row]:
    try:
        # LOCAL: the timeout ends with this transaction, and the connection goes back to the pool without it.
        db.execute(f"SET LOCAL statement_timeout = {max(1, round(seconds * 1000))}")
        return list(db.execute(sql, params).fetchall())
    except Exception as exc:
        if getattr(exc, "sqlstate", None) == _QUERY_CANCELED:
            raise _too_slow(seconds) from None
        raise


def _sqlite_match(db: sqlite3.Connection, sql: str, params: Sequence[Any], seconds: float) -> list[Row]:
    deadline = time.monotonic() + seconds
    db.set_progress_handler(lambda: time.monotonic() > deadline, _PROGRESS_STEPS)
    try:
        return db.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        if str(exc) == "interrupted" and time.monotonic() > deadline:
            raise _too_slow(seconds) from None
        raise
    finally:
        db.set_progress_handler(None, 0)
