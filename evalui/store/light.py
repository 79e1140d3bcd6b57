"""Light reads of a run's samples: one page of small rows for a list, one sample for a transcript.

A light row holds what a sample list shows and filters on (id, group, stage, verdict, error type,
latency, tokens, scanner findings), read from small columns only: never the payload, request,
response, trajectory or verdict JSON. Three columns make that possible; the store writes them with
each verdict (and each ``record_findings``), and a migration step fills them for older stores:

- ``error_type``: the verdict's ``error_type``;
- ``unscored``: 1 when the verdict says ``scored: false`` (no known answer);
- ``findings``: the scanners' findings as ``,scanner:severity,…,`` (``NULL``: never scanned).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple, Protocol

from evalui.store.protocols import Connection, Row
from evalui.store.rows import Sample, _loads
from evalui.store.store_core import StoreCore

INVALID = "invalid"
ANY_INVALID = "any invalid"  # the finding filter for samples the valid-sample score leaves out
VERDICTS = ("correct", "wrong", "error", "unscored", "pending")
ERROR_CHARS = 300  # of an endpoint error, in a light row

# The verdict word (as evalui.reports.verdicts.verdict_of) in SQL, for filters.
_VERDICT_WHERE = {
    "correct": "stage = 'judged' AND unscored = 0 AND correct = 1",
    "wrong": "stage = 'judged' AND unscored = 0 AND (correct IS NULL OR correct != 1)",
    "unscored": "stage = 'judged' AND unscored = 1",
    "error": "stage != 'judged' AND error IS NOT NULL",
    "pending": "stage != 'judged' AND error IS NULL",
}
# The error type a list shows (as evalui.viewer.inspector_data.error_type_of), in SQL.
ERROR_TYPE_SQL = ("CASE WHEN stage != 'judged' THEN (CASE WHEN error IS NOT NULL THEN 'endpoint_error' ELSE '' END)"
                  " WHEN correct = 1 THEN '' ELSE COALESCE(error_type, '') END")
_TOKENS = "(prompt_tokens + completion_tokens)"
# The verdict word in SQL (as verdict_word).
VERDICT_SQL = ("CASE WHEN stage = 'judged' THEN (CASE WHEN unscored = 1 THEN 'unscored' WHEN correct = 1 THEN 'correct'"
               " ELSE 'wrong' END) WHEN error IS NOT NULL THEN 'error' ELSE 'pending' END")
# For the viewer's list (evalui.store.view): each verdict word's condition, and a sample's tokens.
VERDICT_WHERE, TOKENS_SQL = _VERDICT_WHERE, _TOKENS
# order_by names → SQL; each but error_type has an index that starts with exp_id (schema.py).
ORDERS = {
    "position": ("position",),
    "sample": ("sample_id",),
    "group": ("grp", "position"),
    "stage": ("stage", "position"),
    "latency": ("latency_s", "position"),
    "tokens": (_TOKENS, "position"),
    "error_type": (ERROR_TYPE_SQL, "position"),
}
LIGHT_COLUMNS = (f"sample_id, position, grp, stage, correct, unscored, error_type, SUBSTR(error, 1, {ERROR_CHARS})"
                 " AS error_excerpt, latency_s, prompt_tokens, completion_tokens, attempts, findings")


@dataclass(slots=True)
class SampleRow:
    """One sample as a list shows it; ``findings``: (scanner, severity) pairs, None if never scanned."""

    sample_id: str
    position: int
    group: str
    stage: str
    verdict: str
    correct: bool | None
    error_type: str
    error: str
    latency_s: float | None
    tokens: int
    prompt_tokens: int
    completion_tokens: int
    attempts: int
    findings: list[tuple[str, str]] | None

    @property
    def invalid(self) -> bool:
        return any(severity == INVALID for _, severity in self.findings or ())

    @property
    def scanners(self) -> list[str]:
        return sorted({scanner for scanner, _ in self.findings or ()})

    def as_dict(self) -> dict:
        return {**asdict(self), "invalid": self.invalid}


class Outcome(NamedTuple):
    sample_id: str
    group: str
    stage: str
    verdict: str  # correct / wrong / error / unscored / pending
    invalid: bool | None  # None: never scanned


@dataclass
class SamplePage:
    rows: list[SampleRow]
    total: int  # samples that pass the filters, over every page
    offset: int
    limit: int | None


def verdict_word(stage: str, correct, unscored, error) -> str:
    if stage == "judged":
        if unscored:
            return "unscored"
        return "correct" if correct else "wrong"
    return "error" if error is not None else "pending"


def shown_error_type(stage: str, correct, error_type, error) -> str:
    if stage != "judged":
        return "endpoint_error" if error is not None else ""
    return "" if correct else str(error_type or "")


def light_row(row: Row) -> SampleRow:
    stage, correct = row["stage"], None if row["correct"] is None else bool(row["correct"])
    error = row["error_excerpt"]
    return SampleRow(
        sample_id=row["sample_id"], position=row["position"], group=row["grp"], stage=stage,
        verdict=verdict_word(stage, correct, row["unscored"], error), correct=correct,
        error_type=shown_error_type(stage, correct, row["error_type"], error), error=error or "",
        latency_s=row["latency_s"], tokens=row["prompt_tokens"] + row["completion_tokens"],
        prompt_tokens=row["prompt_tokens"], completion_tokens=row["completion_tokens"], attempts=row["attempts"],
        findings=parse_findings(row["findings"]))


# The verdict's light columns --------------------------------------------------------------------
def findings_text(findings) -> str | None:
    """``,scanner:severity,…,`` (sorted, each pair once) for the ``findings`` column; None: not scanned."""
    if not isinstance(findings, list):
        return None
    pairs = sorted({f"{f.get('scanner')}:{f.get('severity')}" for f in findings if isinstance(f, dict)})
    return "," + "".join(f"{pair}," for pair in pairs)


def parse_findings(text: str | None) -> list[tuple[str, str]] | None:
    if text is None:
        return None
    if text == ",":  # scanned, nothing found: most samples
        return []
    return list(_parsed_findings(text))


@functools.lru_cache(maxsize=1024)
def _parsed_findings(text: str) -> tuple[tuple[str, str], ...]:
    # A run holds a few distinct texts, read again for each of its thousands of rows.
    return tuple((scanner, severity) for scanner, severity in
                 (pair.rsplit(":", 1) for pair in text.strip(",").split(",") if pair))


def verdict_columns(verdict) -> tuple:
    """(error_type, unscored, findings) of a verdict, for its row."""
    verdict = verdict if isinstance(verdict, dict) else {}
    error_type = verdict.get("error_type")
    return (None if error_type in (None, "") else str(error_type), int(verdict.get("scored") is False),
            findings_text(verdict.get("findings")))


# Filters ----------------------------------------------------------------------------------------
def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def where(exp_id: str, *, verdict: str | None = None, group: str | None = None, error_type: str | None = None,
          finding: str | None = None, stage: str | None = None,
          matching: tuple[str, list] | None = None) -> tuple[str, list]:
    """The WHERE clause (and its parameters) of a run's samples that pass every given filter;
    ``matching``: SQL of the ids to keep, and its parameters (a search's, evalui.store.search)."""
    clauses, params = ["exp_id = ?"], [exp_id]
    if matching is not None:
        clauses.append(f"sample_id IN ({matching[0]})")
        params += matching[1]
    if verdict:
        if verdict not in _VERDICT_WHERE:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
        clauses.append(f"({_VERDICT_WHERE[verdict]})")
    if group is not None:
        clauses.append("grp = ?")
        params.append(group)
    if stage is not None:
        clauses.append("stage = ?")
        params.append(stage)
    if error_type is not None:
        clauses.append(f"{ERROR_TYPE_SQL} = ?")
        params.append(error_type)
    if finding == ANY_INVALID:
        clauses.append("findings LIKE ? ESCAPE '\\'")
        params.append(f"%:{INVALID},%")
    elif finding:
        clauses.append("findings LIKE ? ESCAPE '\\'")
        params.append(f"%,{_like(finding)}:%")
    return " AND ".join(clauses), params


def order(order_by: str, descending: bool) -> str:
    if order_by not in ORDERS:
        raise ValueError(f"order_by must be one of {', '.join(ORDERS)}, not {order_by!r}")
    return ", ".join(f"{term}{' DESC' if descending else ''}" for term in ORDERS[order_by])


def light_columns_of_verdicts(rows: Iterable[Row]) -> list[tuple[Any, ...]]:
    """Migration backfill: (error_type, unscored, findings, exp_id, sample_id) for stored verdicts."""
    return [(*verdict_columns(_loads(row["verdict"])), row["exp_id"], row["sample_id"]) for row in rows]


INDEXES = (
    # a page in run order, and the unfiltered listing's count
    "CREATE INDEX IF NOT EXISTS samples_by_position ON samples(exp_id, position)",
    "CREATE INDEX IF NOT EXISTS samples_by_group ON samples(exp_id, grp, position)",
    "CREATE INDEX IF NOT EXISTS samples_by_latency ON samples(exp_id, latency_s, position)",
    f"CREATE INDEX IF NOT EXISTS samples_by_tokens ON samples(exp_id, {_TOKENS}, position)",
)


def light_columns(db: Connection, dialect: str) -> None:
    """Migration step: the verdict's light columns, filled from the stored verdicts, and the indexes
    of the light reads (samples_by_stage, of the first schema, serves the verdict filters)."""
    db.execute("ALTER TABLE samples ADD COLUMN error_type TEXT")
    db.execute("ALTER TABLE samples ADD COLUMN unscored INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE samples ADD COLUMN findings TEXT")
    rows = db.execute("SELECT exp_id, sample_id, verdict FROM samples WHERE verdict IS NOT NULL").fetchall()
    if rows:
        db.executemany("UPDATE samples SET error_type = ?, unscored = ?, findings = ? WHERE exp_id = ? AND sample_id = ?",
                       light_columns_of_verdicts(rows))
    for statement in INDEXES:
        db.execute(statement)


class _Reads(StoreCore, Protocol):
    """What the light reads use of RunStore: its core, and these reads themselves."""

    def sample_rows(self, exp_id: str, *, verdict: str | None = None, group: str | None = None,
                    error_type: str | None = None, finding: str | None = None, order_by: str = "position",
                    descending: bool = False, offset: int = 0, limit: int | None = None) -> list[SampleRow]: ...


class LightReadsMixin:
    """The run store's light reads (mixed into RunStore, which provides _read and _sample: its
    methods take ``self`` as StoreCore, so mypy checks what they use of RunStore)."""

    def sample_page(self: _Reads, exp_id: str, offset: int = 0, limit: int | None = 50, *, verdict: str | None = None,
                    group: str | None = None, error_type: str | None = None, finding: str | None = None,
                    order_by: str = "position", descending: bool = False) -> SamplePage:
        """One page of light rows of the samples that pass the filters, and how many pass in all.

        ``verdict``: correct / wrong / error / unscored / pending; ``group``; ``error_type`` as a
        list shows it (``endpoint_error`` for an endpoint error, "" for none); ``finding``: a
        scanner's name or ANY_INVALID; ``order_by``: one of ORDERS; ``limit=None``: every row."""
        clause, params = where(exp_id, verdict=verdict, group=group, error_type=error_type, finding=finding)
        rows = self.sample_rows(exp_id, verdict=verdict, group=group, error_type=error_type, finding=finding,
                                order_by=order_by, descending=descending, offset=offset, limit=limit)
        if limit is None or (offset == 0 and len(rows) < limit):
            total = offset + len(rows)
        else:
            total = self._read(f"SELECT COUNT(*) AS n FROM samples WHERE {clause}", params)[0]["n"]
        return SamplePage(rows=rows, total=int(total), offset=offset, limit=limit)

    def sample_rows(self: StoreCore, exp_id: str, *, verdict: str | None = None, group: str | None = None,
                    error_type: str | None = None, finding: str | None = None, order_by: str = "position",
                    descending: bool = False, offset: int = 0, limit: int | None = None) -> list[SampleRow]:
        """The light rows of the run's samples that pass the filters (all of them by default)."""
        clause, params = where(exp_id, verdict=verdict, group=group, error_type=error_type, finding=finding)
        sql = f"SELECT {LIGHT_COLUMNS} FROM samples WHERE {clause} ORDER BY {order(order_by, descending)}"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            params += [int(limit), max(0, int(offset))]
        elif offset:
            sql += " LIMIT -1 OFFSET ?" if self.dialect == "sqlite" else " OFFSET ?"
            params.append(max(0, int(offset)))
        return [light_row(row) for row in self._read(sql, params)]

    def run_version(self: StoreCore, exp_id: str) -> tuple[Any, ...] | None:
        """A value that differs once the run's row or any of its samples was written again (None: no
        such run), for readers that keep what they built from a run until it changes: the run's row
        (times, status, counts) and its samples' number, latest write time and sum of write times.
        Read on a connection of its own: a dashboard asks it on every call, and must not hold the
        store's lock, under which the writer commits a running run's samples, for the few ms it takes."""
        with self.reader() as db:
            run = db.execute("SELECT created_at, updated_at, status, n_total, n_judged, n_correct, n_errors, n_tokens"
                             " FROM experiments WHERE exp_id = ?", (exp_id,)).fetchall()
            if not run:
                return None
            written = db.execute("SELECT COUNT(*) AS n, MAX(updated_at) AS last, SUM(updated_at) AS total"
                                 " FROM samples WHERE exp_id = ?", (exp_id,)).fetchall()
        return (*tuple(run[0]), *tuple(written[0]))

    def benchmark_version(self: StoreCore, benchmark: str) -> tuple[tuple[Any, ...], ...]:
        """A value that differs once a run of ``benchmark`` is added, removed, renamed to another model
        or judges a sample: what the scanners' context of its runs (other models' outcomes) is built from."""
        return tuple(tuple(row) for row in self._read(
            "SELECT exp_id, model, created_at, updated_at, n_judged, n_correct FROM experiments WHERE benchmark = ?"
            " ORDER BY exp_id", (benchmark,)))

    def sample_outcomes(self: StoreCore, exp_id: str) -> list[Outcome]:
        """Every sample of the run as (id, group, stage, verdict word, invalid or None when never
        scanned), in run order: what a comparison reads, and nothing else."""
        rows = self._read("SELECT sample_id, grp, stage, correct, unscored, error IS NOT NULL AS failed, findings"
                          " FROM samples WHERE exp_id = ? ORDER BY position", (exp_id,))
        return [Outcome(r["sample_id"], r["grp"], r["stage"],
                        verdict_word(r["stage"], r["correct"], r["unscored"], True if r["failed"] else None),
                        None if r["findings"] is None else f":{INVALID}," in r["findings"]) for r in rows]

    def sample(self: StoreCore, exp_id: str, sample_id: str) -> Sample | None:
        """One sample in full (its transcript), or None: one row read by its key."""
        rows = self._read("SELECT * FROM samples WHERE exp_id = ? AND sample_id = ?", (exp_id, sample_id))
        return self._sample(rows[0]) if rows else None

    def samples_by_id(self: StoreCore, exp_id: str, sample_ids: Iterable[str]) -> dict[str, Sample]:
        """Some samples of a run in full, by id (two transcripts side by side, a page's details)."""
        sample_ids = list(dict.fromkeys(sample_ids))
        found: dict[str, Sample] = {}
        for start in range(0, len(sample_ids), 500):  # within every database's limit of parameters
            chunk = sample_ids[start:start + 500]
            rows = self._read(f"SELECT * FROM samples WHERE exp_id = ? AND sample_id IN ({','.join('?' * len(chunk))})",
                              (exp_id, *chunk))
            found.update((row["sample_id"], self._sample(row)) for row in rows)
        return {sample_id: found[sample_id] for sample_id in sample_ids if sample_id in found}

    def sample_facets(self: StoreCore, exp_id: str) -> dict[str, dict[str, int]]:
        """What each filter can choose for this run, with counts: ``verdict``, ``group``,
        ``error_type`` and ``finding`` (scanner names, and ANY_INVALID when some sample is invalid).
        One pass over the run's rows, grouped in SQL (a few hundred groups at most)."""
        facets: dict[str, dict[str, int]] = {"verdict": {}, "group": {}, "error_type": {}, "finding": {}}
        rows = self._read(f"SELECT grp, {ERROR_TYPE_SQL} AS kind, {VERDICT_SQL} AS word, findings, COUNT(*) AS n,"
                          " MIN(position) AS first FROM samples WHERE exp_id = ? GROUP BY 1, 2, 3, 4", (exp_id,))
        first: dict[tuple[str, str], int] = {}
        invalid = 0
        scanners: dict[str, int] = {}
        for row in rows:
            n = int(row["n"])
            for name, value in (("group", row["grp"]), ("error_type", row["kind"]), ("verdict", row["word"])):
                if value:
                    facets[name][value] = facets[name].get(value, 0) + n
                    first[(name, value)] = min(first.get((name, value), row["first"]), row["first"])
            pairs = parse_findings(row["findings"]) or []
            invalid += n if any(severity == INVALID for _, severity in pairs) else 0
            for scanner in {scanner for scanner, _ in pairs}:
                scanners[scanner] = scanners.get(scanner, 0) + n
        for name in ("group", "error_type"):  # in the order they first occur in the run
            facets[name] = dict(sorted(facets[name].items(), key=lambda item: first[(name, item[0])]))
        facets["verdict"] = {word: facets["verdict"][word] for word in VERDICTS if word in facets["verdict"]}
        if invalid:
            facets["finding"][ANY_INVALID] = invalid
        facets["finding"].update(sorted(scanners.items()))
        return facets
