"""The run store: experiments and their samples in SQLite or PostgreSQL, so runs resume, can be
compared, and can be shared by several workers (evalui.store.claims).

Each sample moves init → rollout → judged, as in the utu eval framework. A rollout that failed
for good stays at init with its error recorded, and is retried when the run resumes.

Writes go through one writer thread that commits them in groups (evalui.store.group_commit);
a write has returned (or its callback has run) only once it is committed.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from evalui.config import data_dir
from evalui.errors import DamagedRun
from evalui.stats.epochs import split_epoch
from evalui.store.answers import AnswerWritesMixin, JudgedAnswer  # noqa: F401  (JudgedAnswer: re-exported)
from evalui.store.claims import STALE_AFTER_S, ClaimsMixin, owner_alive, process_owner  # noqa: F401
from evalui.store.counts import COUNT_COLUMNS
from evalui.store.group_commit import Done, GroupCommit, Statement
from evalui.store.light import LightReadsMixin, findings_text
from evalui.store.parts import (
    INSERT_PART,
    PACKED_COLUMNS,
    LostPart,
    PartCache,
    pack,
    rows_references,
)
from evalui.store.protocols import Connection, Row
from evalui.store.rows import STAGES, Sample, _dumps, _loads  # noqa: F401  (re-exported)
from evalui.store.schema import MIGRATIONS, SCHEMA  # noqa: F401  (SCHEMA: re-exported)
from evalui.store.search import SAMPLE, index_statement, sample_part
from evalui.store.sql import (
    database_url,
    first_row,
    is_postgres,
    migrate_postgres,
    migrate_sqlite,
    open_sqlite,
    open_sqlite_reader,
    postgres_version,
    redact_database_url,
    sqlite_path,
    sqlite_version,
)
from evalui.store.view import ViewReadsMixin

# A sample's answer and its verdict in one row update (record_judgement folds them when it can).
# Read connections kept open between reads (``RunStore.reader``): a PostgreSQL connection costs a
# round of authentication to open, and a few cover the searches a dashboard runs at once.
IDLE_READERS = 4


class RunBusy(ValueError):
    """The run is being executed by a live process: it cannot be deleted or started twice."""


class RunStore(AnswerWritesMixin, ClaimsMixin, LightReadsMixin, ViewReadsMixin):
    """Thread-safe access to one store; a write is committed when it returns (or, with
    ``wait=False``, before its ``on_done`` runs).

    ``path``: a SQLite file. Otherwise ``url`` or ``$EVALUI_DATABASE_URL`` (``postgresql://…`` or
    ``sqlite:///…``), else ``$EVALUI_DATA_DIR/evalui.sqlite``."""

    def __init__(self, path: str | Path | None = None, *, url: str | None = None):
        url = url or (None if path else database_url())
        self._lock = threading.RLock()
        self._joined: dict[str, str] = {}  # exp_id -> this store's worker on it (see record_judgement)
        self._readers: list[Connection] = []  # idle connections of reader(), guarded by _readers_lock
        self._readers_lock = threading.Lock()
        self._readers_closed = False
        self.path: Path | None  # the SQLite file; None for PostgreSQL
        self.dialect: str  # "sqlite" or "postgresql"
        self.location: str  # the file, or the server's URL without its password
        self._db: Connection
        self._open_reader: Callable[[], Connection]
        if is_postgres(url):
            from evalui.store.sql import PostgresConnection

            postgres_url = url  # a str here: is_postgres says so
            self.path, self.dialect = None, "postgresql"
            self.location = redact_database_url(postgres_url)
            self._db = PostgresConnection(postgres_url)
            # a closure: the password stays out of attributes
            self._open_reader = lambda: PostgresConnection(postgres_url)
            with self._lock:
                migrate_postgres(self._db)
        else:
            sqlite_file = Path(path) if path else sqlite_path(url) if url else data_dir() / "evalui.sqlite"
            self.path = sqlite_file
            sqlite_file.parent.mkdir(parents=True, exist_ok=True)
            self.dialect, self.location = "sqlite", str(sqlite_file)
            self._db = open_sqlite(sqlite_file)
            self._open_reader = lambda: open_sqlite_reader(sqlite_file)
            with self._lock:
                migrate_sqlite(self._db)
        self._writer = GroupCommit(self._db, self._lock, bulk=self.dialect == "sqlite" and sqlite3.sqlite_version_info >= (3, 38))
        self._parts = PartCache(self._read)

    @property
    def schema_version(self) -> int:
        with self._lock:
            return postgres_version(self._db) if self.dialect == "postgresql" else sqlite_version(self._db)

    def close(self) -> None:
        self._writer.close()
        with self._readers_lock:
            self._readers_closed, idle, self._readers = True, self._readers, []
        for db in idle:
            db.close()
        with self._lock:
            self._db.close()

    @contextlib.contextmanager
    def reader(self) -> Iterator[Connection]:
        """A read connection of its own, used without the store's lock: a long read (a visitor's
        full-text search) then holds up no other read or write of this store. It sees what the
        store has committed; the caller ends any transaction it opens. One that raised is closed,
        not kept: it may be mid-transaction or broken."""
        with self._readers_lock:
            db = self._readers.pop() if self._readers else None
        if db is None:
            db = self._open_reader()
        try:
            yield db
            db.rollback()  # nothing was written; a PostgreSQL read left open would hold its snapshot
        except BaseException:
            db.close()
            raise
        with self._readers_lock:
            if not self._readers_closed and len(self._readers) < IDLE_READERS:
                self._readers.append(db)
                return
        db.close()

    def flush(self) -> None:
        """Wait until every write queued so far (``wait=False``) is committed."""
        self._writer.flush()

    def commit_seconds(self) -> float:
        """Seconds the store's writer has spent committing so far (evalui.run.phases)."""
        return self._writer.commit_s

    def _write(self, sql: str, params: Iterable[Any] = (), *, wait: bool = True, on_done: Done | None = None) -> None:
        self._writer.submit([(sql, tuple(params))], wait=wait, on_done=on_done)

    def _read(self, sql: str, params: Iterable[Any] = ()) -> Sequence[Row]:
        with self._lock:
            rows = self._db.execute(sql, tuple(params)).fetchall()
            if self.dialect == "postgresql":
                self._db.commit()  # no transaction left open between reads: it would hold locks
            return rows

    # experiments ------------------------------------------------------------------------------
    def create_or_get_experiment(self, exp_id: str, benchmark: str, model: str, endpoint_host: str, config: dict) -> dict:
        """The experiment ``exp_id``; created when new. An existing one must be the same benchmark."""
        existing = self.experiment(exp_id)
        if existing is None:
            now = time.time()
            # DO NOTHING: two workers started with one new exp_id at once both get the one run.
            self._write(
                "INSERT INTO experiments (exp_id, benchmark, model, endpoint_host, config, status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, 'created', ?, ?) ON CONFLICT (exp_id) DO NOTHING",
                (exp_id, benchmark, model, endpoint_host, _dumps(config), now, now),
            )
            existing = self.experiment(exp_id)
            if existing is None:  # deleted by another process between the insert and this read
                raise LookupError(f"exp_id {exp_id!r} was deleted while it was being created")
        if existing["benchmark"] != benchmark:
            raise ValueError(f"exp_id {exp_id!r} already holds a {existing['benchmark']} run, not {benchmark}")
        return existing

    def experiment(self, exp_id: str) -> dict | None:
        rows = self._read("SELECT * FROM experiments WHERE exp_id = ?", (exp_id,))
        return self._experiment_dict(rows[0]) if rows else None

    def experiments(self, benchmark: str | None = None) -> list[dict]:
        sql = "SELECT * FROM experiments"
        params: tuple = ()
        if benchmark:
            sql += " WHERE benchmark = ?"
            params = (benchmark,)
        return [self._experiment_dict(r) for r in self._read(sql + " ORDER BY created_at DESC", params)]

    def _experiment_dict(self, row: Row) -> dict:
        record = dict(row)
        record["config"] = _loads(record["config"]) or {}
        record["summary"] = _loads(record["summary"])
        record["stored_status"] = record["status"]
        # What progress() returns, read with the row: a listing needs no query per run.
        record["counts"] = {name[2:]: int(record.pop(name, 0) or 0) for name in COUNT_COLUMNS}
        # Running while any of its workers lives (in any process, on any machine sharing the store).
        if record["status"] == "running" and not self.live_workers(record["exp_id"]) \
                and not owner_alive(record.get("owner"), record.get("heartbeat_at")):
            record["status"] = "interrupted"
        return record

    # who executes a run ------------------------------------------------------------------------
    def claim_run(self, exp_id: str) -> None:
        """Join the run as this process (evalui.run.claims joins with a worker id of its own)."""
        self.join_run(exp_id, process_owner())

    def heartbeat(self, exp_id: str) -> None:
        self._write("UPDATE experiments SET heartbeat_at = ? WHERE exp_id = ? AND owner = ?",
                    (time.time(), exp_id, process_owner()))

    def is_executing(self, exp_id: str) -> bool:
        experiment = self.experiment(exp_id)
        return bool(experiment and experiment["status"] == "running")

    def set_status(self, exp_id: str, status: str, *, summary: dict | None = None, out_dir: str | None = None) -> None:
        fields, params = ["status = ?", "updated_at = ?"], [status, time.time()]
        if summary is not None:
            fields.append("summary = ?")
            params.append(_dumps(summary))
        if out_dir is not None:
            fields.append("out_dir = ?")
            params.append(out_dir)
        self._write(f"UPDATE experiments SET {', '.join(fields)} WHERE exp_id = ?", (*params, exp_id))

    def update_config(self, exp_id: str, config: dict) -> None:
        """Replace a run's config (a resume that adopted a changed selection)."""
        self._write("UPDATE experiments SET config = ?, updated_at = ? WHERE exp_id = ?",
                    (_dumps(config), time.time(), exp_id))

    def delete_experiment(self, exp_id: str) -> None:
        """Delete the run and its samples; RunBusy while any live process executes it."""
        self.flush()
        with self._lock:
            if self.is_executing(exp_id):
                raise RunBusy(f"run {exp_id!r} is running; cancel it (or wait for it to end) before deleting it")
            try:
                for table in ("samples", "workers", "experiments"):
                    self._db.execute(f"DELETE FROM {table} WHERE exp_id = ?", (exp_id,))
                self._db.commit()
            except BaseException:
                self._db.rollback()
                raise

    # samples ----------------------------------------------------------------------------------
    def add_samples(self, exp_id: str, samples: Iterable[tuple[str, str, dict]]) -> int:
        """Register (sample_id, group, payload) at stage init; samples already known are kept as they are."""
        now = time.time()
        self.flush()
        with self._lock:
            try:
                start = first_row(self._db.execute("SELECT COALESCE(MAX(position) + 1, 0) FROM samples"
                                                   " WHERE exp_id = ?", (exp_id,)))[0]
                parts: dict[str, str] = {}
                rows = []
                for i, (sid, group, payload) in enumerate(samples):
                    text, found = pack(payload)
                    parts.update(found)
                    rows.append((exp_id, sid, start + i, group, text, now, split_epoch(sid)[1]))
                if parts:
                    self._db.executemany(INSERT_PART, sorted(parts.items()))
                cursor = self._db.executemany(
                    "INSERT INTO samples (exp_id, sample_id, position, grp, payload, updated_at, epoch)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (exp_id, sample_id) DO NOTHING", rows)
                added = cursor.rowcount
                indexed = [index_statement(self.dialect, exp_id, row[1], SAMPLE, sample_part(row[1], row[3]),
                                           replace=False) for row in rows]
                if indexed:
                    self._db.executemany(indexed[0][0], [params for _, params, *_ in indexed])
                self._db.commit()
            except BaseException:
                self._db.rollback()
                raise
            return added

    def samples(self, exp_id: str, stages: Iterable[str] | None = None) -> list[Sample]:
        sql = "SELECT * FROM samples WHERE exp_id = ?"
        params: list = [exp_id]
        if stages is not None:
            stages = list(stages)
            sql += f" AND stage IN ({','.join('?' * len(stages))})"
            params += stages
        rows = self._read(sql + " ORDER BY position", params)
        self._parts.fetch(rows_references(rows, PACKED_COLUMNS))  # every part the rows lack, in a few reads
        return [self._sample(r) for r in rows]

    def _sample(self, row: Row) -> Sample:
        # A missing part or a column that is not JSON is said with the run and the sample it is in,
        # not as a traceback from the middle of whatever was reading.
        try:
            return self._sample_of(row)
        except LostPart as exc:
            raise DamagedRun(row["exp_id"], row["sample_id"], str(exc)) from None
        except ValueError as exc:
            raise DamagedRun(row["exp_id"], row["sample_id"], f"a stored column is not JSON ({exc})") from None

    def _sample_of(self, row: Row) -> Sample:
        load = self._parts.load
        return Sample(
            exp_id=row["exp_id"],
            sample_id=row["sample_id"],
            position=row["position"],
            group=row["grp"],
            stage=row["stage"],
            payload=load(row["payload"]) or {},
            request=load(row["request"]),
            response=load(row["response"]),
            prediction=_loads(row["prediction"]),
            latency_s=row["latency_s"],
            prompt_tokens=row["prompt_tokens"],
            completion_tokens=row["completion_tokens"],
            attempts=row["attempts"],
            correct=None if row["correct"] is None else bool(row["correct"]),
            verdict=_loads(row["verdict"]),
            error=row["error"],
            trajectory=load(row["trajectory"]),
            updated_at=row["updated_at"],
            claimed_by=row["claimed_by"],
            epoch=row["epoch"],
            # A judged sample's findings are in its verdict (evalui.run.findings.stored_findings).
            findings=_loads(row["error_findings"]) if row["stage"] != "judged" else None,
        )

    def record_findings(self, exp_id: str, verdicts: dict[str, dict], errors: dict[str, list] | None = None) -> None:
        """Write judged samples' verdicts again, now holding their ``findings`` (evalui.run.findings):
        kept in the verdict, so no column is added and a new verdict (a rescore) starts without them.
        ``errors``: the findings of samples that never got a verdict (an endpoint error), kept in their
        row until the sample is asked again, so that no read scans them."""
        statements: list[Statement] = [(
            "UPDATE samples SET verdict = ?, findings = ? WHERE exp_id = ? AND sample_id = ? AND stage = 'judged'",
            (_dumps(verdict), findings_text(verdict.get("findings")), exp_id, sample_id))
            for sample_id, verdict in verdicts.items()]
        statements += [(
            "UPDATE samples SET error_findings = ?, findings = ? WHERE exp_id = ? AND sample_id = ?"
            " AND stage != 'judged' AND error IS NOT NULL",
            (_dumps(found), findings_text(found), exp_id, sample_id)) for sample_id, found in (errors or {}).items()]
        if statements:
            # The run's row marks the change too: findings leave the samples' counts and times as they were,
            # and readers that keep a run's rows (run_version) must see that it changed.
            self._writer.submit([*statements, ("UPDATE experiments SET updated_at = ? WHERE exp_id = ?",
                                               (time.time(), exp_id))], wait=True)

    def max_epoch(self, exp_id: str) -> int:
        """The run's highest epoch (1 for a run without samples): one seek on the (exp_id, epoch) index."""
        rows = self._read("SELECT MAX(epoch) AS epoch FROM samples WHERE exp_id = ?", (exp_id,))
        return int(rows[0]["epoch"] or 1) if rows else 1

    def judged_outcomes(self, exp_ids: Iterable[str]) -> list[tuple[str, str, bool]]:
        """(exp_id, sample_id, correct) of the judged samples of these runs; nothing else is read."""
        exp_ids = list(exp_ids)
        if not exp_ids:
            return []
        rows = self._read("SELECT exp_id, sample_id, correct FROM samples WHERE stage = 'judged' AND exp_id IN"
                          f" ({','.join('?' * len(exp_ids))})", exp_ids)
        return [(r["exp_id"], r["sample_id"], bool(r["correct"])) for r in rows]

    def progress(self, exp_id: str) -> dict:
        """Counts for a progress bar: total, judged, correct, errors (pending with an error), tokens.
        One row: the counts the store keeps in the run's row (evalui.store.counts)."""
        rows = self._read(f"SELECT {', '.join(COUNT_COLUMNS)} FROM experiments WHERE exp_id = ?", (exp_id,))
        return {name[2:]: int(rows[0][name] or 0) if rows else 0 for name in COUNT_COLUMNS}
