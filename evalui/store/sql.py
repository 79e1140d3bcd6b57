"""Which database holds the run store, and how one set of SQL reaches either of them.

``EVALUI_DATABASE_URL`` (or ``--database-url``) chooses: unset, SQLite in the data folder;
``sqlite:///path``, SQLite there; ``postgresql://…``, a PostgreSQL server through psycopg 3. The
store writes its SQL once, SQLite-style (``?`` placeholders, ``REAL``); ``PostgresConnection``
translates it, so both stores share one schema and one list of migrations (schema.py).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, SupportsIndex, TypeGuard, overload
from urllib.parse import urlsplit, urlunsplit

from evalui.settings import read
from evalui.store.protocols import Connection, Cursor, Row
from evalui.store.schema import MIGRATIONS, Migration

if TYPE_CHECKING:
    import psycopg
    from psycopg.rows import RowMaker

DATABASE_URL_ENV = "EVALUI_DATABASE_URL"
POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
# Any constant: every evalui process takes this advisory lock to migrate a PostgreSQL store.
MIGRATION_LOCK = 461_723
SQLITE_BUSY_TIMEOUT_S = 30.0


def database_url() -> str | None:
    return read("database_url")


def is_postgres(url: str | None) -> TypeGuard[str]:
    return bool(url) and urlsplit(url).scheme in POSTGRES_SCHEMES


def sqlite_path(url: str) -> Path:
    """The file of a ``sqlite:///…`` URL (a bare path is taken as it is)."""
    if url.startswith("sqlite:///"):
        return Path(url[len("sqlite:///"):]).expanduser()
    if "://" in url:
        raise ValueError(f"{DATABASE_URL_ENV}: use postgresql://… or sqlite:///path, not {redact_database_url(url)}")
    return Path(url).expanduser()


def redact_database_url(url: str) -> str:
    """The URL without its password (and query values), for messages and the page."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        credentials, host = netloc.rsplit("@", 1)
        user = credentials.split(":", 1)[0]
        netloc = f"{user}:[redacted]@{host}" if ":" in credentials else f"{user}@{host}"
    query = "&".join(f"{pair.split('=', 1)[0]}=[redacted]" for pair in parts.query.split("&") if pair)
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


# SQLite ----------------------------------------------------------------------------------------
def open_sqlite(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, check_same_thread=False, timeout=SQLITE_BUSY_TIMEOUT_S)
    db.row_factory = sqlite3.Row
    _enter_wal_mode(db)
    # WAL with synchronous=NORMAL keeps every commit through a process crash (kill -9); only a
    # power cut could lose the last few, and those samples would simply run again.
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    return db


def open_sqlite_reader(path: Path) -> sqlite3.Connection:
    """A second connection to an open store, for reads only. The store's file is in WAL mode already,
    where readers never wait for one another nor for the writer."""
    db = sqlite3.connect(path, check_same_thread=False, timeout=SQLITE_BUSY_TIMEOUT_S)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA query_only=ON")  # a bug here must not become a second writer beside the group commit
    return db


def _is_locked(error: BaseException) -> bool:
    return isinstance(error, sqlite3.OperationalError) and "locked" in str(error)


def _enter_wal_mode(db: sqlite3.Connection) -> None:
    # Switching a fresh file to WAL needs an exclusive lock, and SQLite reports "database is
    # locked" at once, without its busy handler, while another process is opening the same new
    # file: two workers started together would see one of them fail. So wait for it here.
    from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_exponential

    for attempt in Retrying(retry=retry_if_exception(_is_locked), stop=stop_after_delay(SQLITE_BUSY_TIMEOUT_S),
                            wait=wait_exponential(multiplier=0.01, max=0.25), reraise=True):
        with attempt:
            db.execute("PRAGMA journal_mode=WAL")


def first_row(cursor: Cursor) -> Row:
    """The row of a query that always returns one (an aggregate, a PRAGMA, the schema's version)."""
    row = cursor.fetchone()
    if row is None:
        raise LookupError("the store's query returned no row")
    return row


def migrate_sqlite(db: Connection) -> None:
    # BEGIN IMMEDIATE: two processes opening a fresh store must not both run a step.
    db.execute("BEGIN IMMEDIATE")
    try:
        version = first_row(db.execute("PRAGMA user_version"))[0]
        if version == 0 and db.execute("SELECT 1 FROM sqlite_master WHERE name = 'experiments'").fetchone():
            version = 1  # written before versions were recorded: the first wave's schema
        for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
            _run_step(db, step, "sqlite")
            db.execute(f"PRAGMA user_version = {number}")
        db.commit()
    except BaseException:
        db.rollback()
        raise


def sqlite_version(db: Connection) -> int:
    return first_row(db.execute("PRAGMA user_version"))[0]


# PostgreSQL ------------------------------------------------------------------------------------
class PostgresRow(tuple[Any, ...]):
    """A row read by name or position, as sqlite3.Row is, so the store reads both alike."""

    names: tuple[str, ...] = ()

    @overload
    def __getitem__(self, key: SupportsIndex | str, /) -> Any: ...

    @overload
    def __getitem__(self, key: slice, /) -> tuple[Any, ...]: ...

    def __getitem__(self, key: SupportsIndex | str | slice, /) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names.index(key))
        return tuple.__getitem__(self, key)

    def keys(self) -> tuple[str, ...]:
        return self.names


def _row_factory(cursor: psycopg.Cursor[Any]) -> RowMaker[PostgresRow]:
    names = tuple(column.name for column in cursor.description or ())
    row_type = type("Row", (PostgresRow,), {"names": names})
    return lambda values: row_type(values)


@lru_cache(maxsize=512)
def to_postgres(sql: str) -> str:
    """SQLite-style SQL as PostgreSQL reads it: %s placeholders, double-precision REAL."""
    sql = sql.replace("%", "%%").replace("?", "%s")
    return re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)


class PostgresConnection:
    """The slice of sqlite3.Connection that the store and its group commit use, over psycopg 3."""

    dialect = "postgresql"

    def __init__(self, url: str):
        try:
            import psycopg
        except ImportError as exc:  # a declared dependency; say what to install if it is missing
            raise RuntimeError("a PostgreSQL store needs psycopg: pip install 'psycopg[binary]'") from exc
        url = url.replace("postgresql+psycopg://", "postgresql://", 1)
        try:
            self._db = psycopg.connect(url, row_factory=_row_factory, connect_timeout=10,
                                       application_name="evalui")
        except psycopg.OperationalError as exc:
            # psycopg's message can quote the connection string; name the server without its password.
            raise RuntimeError(f"cannot open the PostgreSQL store {redact_database_url(url)}: "
                               f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor[PostgresRow]:
        return self._db.execute(to_postgres(sql), tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> psycopg.Cursor[PostgresRow]:
        cursor = self._db.cursor()
        rows = list(rows)
        cursor.executemany(to_postgres(sql), rows)
        return cursor

    def commit(self) -> None:
        self._db.commit()

    def rollback(self) -> None:
        self._db.rollback()

    def close(self) -> None:
        self._db.close()


def migrate_postgres(db: Connection) -> None:
    try:
        db.execute(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        db.execute("CREATE TABLE IF NOT EXISTS evalui_schema (version INTEGER NOT NULL)")
        row = db.execute("SELECT version FROM evalui_schema").fetchone()
        if row is None:
            db.execute("INSERT INTO evalui_schema (version) VALUES (0)")
        version = row[0] if row else 0
        for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
            _run_step(db, step, "postgresql")
            db.execute("UPDATE evalui_schema SET version = ?", (number,))
        db.commit()
    except BaseException:
        db.rollback()
        raise


def postgres_version(db: Connection) -> int:
    version = first_row(db.execute("SELECT version FROM evalui_schema"))[0]
    db.commit()
    return version


def _run_step(db: Connection, step: Migration, dialect: str) -> None:
    if callable(step):
        step(db, dialect)
        return
    for statement in _statements(step):
        db.execute(statement)


def _statements(step: str) -> list[str]:
    return [statement for statement in step.split(";") if statement.strip()]
