"""Full-text search over a run's samples (prompts, replies, tool calls and tool output), served by the
store: SQLite FTS5, or a PostgreSQL ``tsvector`` (GIN-indexed) query.

The index lives in tables of its own, created on first use beside the store's (the store's schema
and migrations are not touched), and is filled lazily and incrementally: a search first compares
each sample's ``updated_at`` with the one indexed and re-indexes only the samples that changed (or
drops the ones gone). Search returns the matching sample ids of one run.
"""

from __future__ import annotations

import json
import re
import weakref

MAX_BODY_CHARS = 200_000  # of one sample's text; PostgreSQL's tsvector is capped at 1 MB
_INDEX_LOCK = 7_261_002  # PostgreSQL advisory lock: two processes creating the index at once
_ready: weakref.WeakSet = weakref.WeakSet()  # stores whose index tables exist (checked once per store)

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


# The store's own connection and writer: the index is written in the store's transactions, so a
# search sees exactly what the store has committed. (Private members, used here only.)
def _read(store, sql: str, params=()) -> list:
    return store._read(sql, params)


def _write(store, statements: list) -> None:
    store._writer.submit(statements, wait=True)


def _strings(value, out: list[str], depth: int = 0) -> None:
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


def sample_text(sample) -> str:
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


def _ensure(store) -> None:
    if store in _ready:
        return
    _write(store, [(sql, ()) for sql in (_POSTGRES_TABLES if store.dialect == "postgresql" else _SQLITE_TABLES)])
    _ready.add(store)


def _indexed(store, exp_id: str) -> dict[str, float | None]:
    table = "sample_search" if store.dialect == "postgresql" else "sample_text_state"
    return {r["sample_id"]: r["updated_at"] for r in
            _read(store, f"SELECT sample_id, updated_at FROM {table} WHERE exp_id = ?", (exp_id,))}


def _samples(store, exp_id: str, wanted: set[str]) -> list:
    """The stored samples to index, read by id when they are not most of the run."""
    if hasattr(store, "samples_by_id"):
        return list(store.samples_by_id(exp_id, sorted(wanted)).values())
    return [s for s in store.samples(exp_id) if s.sample_id in wanted]


def refresh(store, exp_id: str) -> int:
    """Bring the run's index up to date with the store; returns how many samples were (re)indexed."""
    _ensure(store)
    current = {r["sample_id"]: r["updated_at"] for r in
               _read(store, "SELECT sample_id, updated_at FROM samples WHERE exp_id = ?", (exp_id,))}
    indexed = _indexed(store, exp_id)
    stale = {i for i, at in current.items() if i not in indexed or indexed[i] != at}
    gone = [i for i in indexed if i not in current]
    if not stale and not gone:
        return 0
    samples = _samples(store, exp_id, stale)
    if store.dialect == "postgresql":
        statements = [("DELETE FROM sample_search WHERE exp_id = ? AND sample_id = ?", (exp_id, i)) for i in gone]
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


def search(store, exp_id: str, query: str) -> list[str] | None:
    """Ids of the run's samples holding every piece of ``query`` (a piece's words in a row, its last word
    also as a prefix; case-insensitive, and accent-insensitive on SQLite), in stored order; None for an
    empty query (no search)."""
    phrases = _phrases(query)
    if not phrases:
        return None
    refresh(store, exp_id)
    if store.dialect == "postgresql":
        rows = _read(store, "SELECT s.sample_id FROM sample_search t JOIN samples s ON s.exp_id = t.exp_id AND"
                     " s.sample_id = t.sample_id WHERE t.exp_id = ? AND to_tsvector('simple', t.body) @@"
                     " to_tsquery('simple', ?) ORDER BY s.position",
                     (exp_id, " & ".join("(" + " <-> ".join(w.lower() for w in p) + ":*)" for p in phrases)))
    else:
        match = " AND ".join('"' + " ".join(p) + '"*' for p in phrases)
        # In three plain reads: joined in one query, SQLite's planner re-ran the MATCH per row (seconds).
        docs = {r["rowid"] for r in _read(store, "SELECT rowid FROM sample_text WHERE sample_text MATCH ?", (match,))}
        hits = {r["sample_id"] for r in _read(store, "SELECT doc, sample_id FROM sample_text_state WHERE exp_id = ?",
                                               (exp_id,)) if r["doc"] in docs}
        rows = [r for r in _read(store, "SELECT sample_id FROM samples WHERE exp_id = ? ORDER BY position", (exp_id,))
                if r["sample_id"] in hits]
    return [r["sample_id"] for r in rows]
