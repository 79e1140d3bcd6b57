"""The types the store's one code path works through, whichever database is behind it.

The store's SQL reaches SQLite through ``sqlite3.Connection`` and PostgreSQL through
``evalui.store.sql.PostgresConnection`` (psycopg 3); both fit ``Connection`` below, and their rows
(``sqlite3.Row``, ``evalui.store.sql.PostgresRow``) fit ``Row``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol


class Row(Protocol):
    """A result row, read by column name or by position (``dict(row)`` and ``tuple(row)`` work too)."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...

    def __len__(self) -> int: ...

    def keys(self) -> Sequence[str]: ...


class Cursor(Protocol):
    """What the store reads of a cursor: its rows (one, all, or iterated) and the rows a write changed."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Row | None: ...

    def fetchall(self) -> Sequence[Row]: ...

    def __iter__(self) -> Iterator[Row]: ...


class Connection(Protocol):
    """The slice of ``sqlite3.Connection`` the store uses: SQLite-style SQL (``?`` placeholders)."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Cursor: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def close(self) -> None: ...
