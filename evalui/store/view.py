"""The viewer's list in SQL: a run's light rows (evalui.store.light) that pass the filters and a full-text
search (evalui.store.search), sorted by a viewer column and paged, with how many pass and where a
selected sample is among them. Reads only: the search's index is written with the samples."""

from __future__ import annotations

from dataclasses import dataclass

from evalui.store import search
from evalui.store.light import (
    ERROR_TYPE_SQL,
    LIGHT_COLUMNS,
    TOKENS_SQL,
    VERDICT_WHERE,
    VERDICTS,
    SampleRow,
    light_row,
    where,
)
from evalui.store.protocols import Row
from evalui.store.store_core import StoreCore


@dataclass
class ViewPage:
    rows: list[SampleRow]
    total: int  # samples that pass the filters and the search
    offset: int
    selected: int | None  # where the selected sample is among them (from 0); None: not among them


# The viewer's sort columns → (the value in SQL, when it counts as empty): empty values sort last in
# both directions, ties in stored order (as evalui.viewer.rows.sorted_rows sorts a list in Python).
_VERDICT_RANK = "CASE " + " ".join(f"WHEN ({VERDICT_WHERE[word]}) THEN {n}" for n, word in enumerate(VERDICTS)) + " END"
VIEW_ORDERS = {
    "id": ("sample_id", "sample_id = ''"),
    "group": ("grp", "grp = ''"),
    "verdict": (_VERDICT_RANK, "0 = 1"),
    "error_type": (ERROR_TYPE_SQL, f"{ERROR_TYPE_SQL} = ''"),
    "latency_s": ("latency_s", "latency_s IS NULL"),
    "tokens": (TOKENS_SQL, "0 = 1"),
}
_TEXT_ORDERS = ("id", "group", "error_type")


def view_order(column: str, descending: bool, dialect: str) -> str:
    """ORDER BY of the viewer's list sorted by ``column`` (stored order for an unknown one)."""
    direction = " DESC" if descending else ""
    if column not in VIEW_ORDERS:
        return f"position{direction}"
    value, empty = VIEW_ORDERS[column]
    if column in _TEXT_ORDERS and dialect == "postgresql":
        value += ' COLLATE "C"'  # by code point, as Python and SQLite compare, whatever the database's locale
    return f"CASE WHEN {empty} THEN 1 ELSE 0 END, {value}{direction}, position"



class ViewReadsMixin:
    """The viewer's list reads of the run store (mixed into RunStore, as evalui.store.light's are)."""

    def sample_view(self: StoreCore, exp_id: str, *, verdict: str | None = None, group: str | None = None,
                    error_type: str | None = None, finding: str | None = None, text: str = "",
                    column: str = "position", descending: bool = False, offset: int | None = 0,
                    limit: int | None = None, selected: str | None = None, page_size: int = 50) -> ViewPage:
        """The viewer's list in SQL: the light rows of the samples that pass the filters and the full-text
        search ``text`` (evalui.store.search), sorted by a viewer column (VIEW_ORDERS), ``limit`` of them
        from ``offset``; ``offset=None``: from the page of ``page_size`` that holds ``selected``. Reads
        only: the search's index is written with the samples."""
        phrases = search.checked_phrases(text)
        if verdict and verdict not in VERDICTS:
            return ViewPage([], 0, 0, None)  # a verdict no sample has (an API caller may send any)
        matching = search.matching_ids(self.dialect, exp_id, phrases) if phrases else None
        clause, params = where(exp_id, verdict=verdict, group=group, error_type=error_type, finding=finding,
                               matching=matching)

        def read(sql: str, values: list) -> list[Row]:
            # A search's match runs on a connection of its own, within its deadline.
            return search.bounded_read(self, sql, values) if phrases else list(self._read(sql, values))

        ordered = view_order(column, descending, self.dialect)
        index = None
        if selected is not None:
            found = read(f"SELECT n FROM (SELECT sample_id, ROW_NUMBER() OVER (ORDER BY {ordered}) AS n FROM samples"
                         f" WHERE {clause}) ranked WHERE sample_id = ?", [*params, selected])
            index = int(found[0]["n"]) - 1 if found else None
        if offset is None:
            offset = (index or 0) // page_size * page_size
        sql = f"SELECT {LIGHT_COLUMNS}, COUNT(*) OVER () AS total FROM samples WHERE {clause} ORDER BY {ordered}"
        values = list(params)
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            values += [int(limit), max(0, int(offset))]
        elif offset:
            sql += " LIMIT -1 OFFSET ?" if self.dialect == "sqlite" else " OFFSET ?"
            values.append(max(0, int(offset)))
        rows = read(sql, values)
        if rows:
            total = int(rows[0]["total"])
        elif offset:  # past the last page: how many there are, all the same
            total = int(read(f"SELECT COUNT(*) AS n FROM samples WHERE {clause}", params)[0]["n"])
        else:
            total = 0
        return ViewPage([light_row(row) for row in rows], total, max(0, int(offset)), index)
