"""A run of one SQLite statement, row after row, as one statement over a JSON array of the rows.

Why: ``executemany`` binds and steps each row in turn, taking the GIL back between rows, so the
store's writer thread and the run's event loop take turns for every row of a group commit. Over
``json_each`` the whole run is a single step inside SQLite, with the GIL released, and SQLite reads
its JSON faster than the driver binds parameters.

Only statements of two plain shapes are rewritten, and only when the rows survive the trip through
JSON unchanged:

- ``INSERT INTO t (…) VALUES (?, …) [ON CONFLICT …]``: the rows go in in their order, so an upsert
  of the same key twice keeps the last, as ``executemany`` does;
- ``UPDATE t SET … = ? … WHERE … = ? …``: each ``?`` of the WHERE clause is a key; rows whose keys
  repeat are left to ``executemany``, since UPDATE … FROM applies one source row per target row.

Every other run, and every run whose values JSON would change (bytes, text holding NUL, a float
that is not finite, an int past 64 bits), goes to ``executemany`` as before.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Sequence
from typing import Any

BULK_MIN_ROWS = 4  # fewer rows gain nothing from the JSON's round trip
_ROW = "_bulk"
_INSERT = re.compile(r"^(INSERT INTO \w+ \([\w, ]+\)) VALUES \(([?, ]+)\)(.*)$", re.DOTALL)
_UPDATE = re.compile(r"^(UPDATE \w+ SET .+?) (WHERE .+)$", re.DOTALL)
_INT64 = 2**63
_EQUALS_PARAMETER = re.compile(r"(?<![<>!=])= \?")  # "k = ?", not "k <= ?", "k >= ?" or "k != ?"


@functools.lru_cache(maxsize=64)
def bulk_sql(sql: str) -> tuple[str, int] | None:
    """The statement over ``json_each(?)`` that does what ``executemany(sql, rows)`` does, and how
    many trailing parameters of a row are its keys (0 for an insert); None for another shape."""
    if re.sub(r"'[^']*'", "", sql).count("?") != sql.count("?") or '"' in sql:
        return None  # a '?' inside a literal is no parameter; quoted names are not parsed here
    numbered = _numbered(sql)
    insert = _INSERT.match(sql)
    if insert:
        head, marks, tail = insert.groups()
        count = marks.count("?")
        columns = ", ".join(_value(i) for i in range(count))
        # WHERE true: without it SQLite would read ON CONFLICT as a join's ON clause.
        return (f"{head} SELECT {columns} FROM json_each(?) AS {_ROW} WHERE true ORDER BY {_ROW}.key{tail}", 0)
    update, plain = _UPDATE.match(numbered), _UPDATE.match(sql)
    if update and plain and " SELECT " not in sql.upper() and " FROM " not in sql.upper():
        assignments, where = update.groups()
        keys = plain.group(2).count("?")
        # Each key compared for equality: then rows with distinct keys meet distinct target rows.
        if not keys or len(_EQUALS_PARAMETER.findall(plain.group(2))) != keys or " OR " in where.upper():
            return None
        return f"{assignments} FROM json_each(?) AS {_ROW} {where}", keys
    return None


class BulkSQL(str):
    """SQL that a group commit may run over ``json_each`` (``bulk_sql``) when a group holds many
    rows of it: a statement opts in by being made one."""


def _numbered(sql: str) -> str:
    counter = iter(range(sql.count("?")))
    return re.sub(r"\?", lambda _: _value(next(counter)), sql)


def _value(index: int) -> str:
    return f"({_ROW}.value ->> {index})"


def bulk_rows(rows: Sequence[Sequence[Any]], keys: int) -> str | None:
    """The rows as the JSON array the bulk statement reads; None when JSON would change a value or
    (``keys``) two rows update the same row."""
    for row in rows:
        for value in row:
            kind = type(value)
            if kind is str:
                if "\x00" in value:
                    return None
            elif kind is int:
                if not -_INT64 <= value < _INT64:
                    return None
            elif kind is float:
                if not math.isfinite(value):
                    return None
            elif value is not None:  # bool, bytes, anything else: as the driver binds it
                return None
    if keys and len({tuple(row[-keys:]) for row in rows}) != len(rows):
        return None
    try:
        return _json_array(rows)
    except (TypeError, ValueError):  # text JSON cannot hold (a lone surrogate): the driver says so per row
        return None


def _json_array(rows: Sequence[Sequence[Any]]) -> str:
    try:  # orjson (a gradio dependency) writes the array several times faster
        import orjson
    except ImportError:
        return json.dumps(rows, ensure_ascii=False, allow_nan=False)
    return orjson.dumps(rows).decode()
