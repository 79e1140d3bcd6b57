"""Group commit for the run store: one thread commits queued writes, many per transaction.

A run at C = 64 finishes thousands of samples a second, and each used to take two commits under
the store's lock, one after the other: the workers queued up behind the database. Here a write is
queued, and one thread commits everything queued so far in one transaction (with the GIL
released while SQLite works), then tells each writer. Crash safety is unchanged: a write is
durable once its callback has run or its ``wait`` has returned (WAL: a committed transaction
survives ``kill -9``), and the runner reports a sample as finished only then.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from evalui.store.bulk import BULK_MIN_ROWS, BulkSQL, bulk_rows, bulk_sql
from evalui.store.protocols import Connection

# (sql, params), or (sql, params, key): a statement with a key runs once per group, after the
# others, with the params of its last occurrence (an idempotent check, such as "is the run done").
# A key is a pair: ("part", sha256) for a stored part (evalui.store.parts); ("index", part) for a
# sample's search document (evalui.store.search), which is not run once but gathered, in order, after
# the others; else what the check is about.
Params: TypeAlias = Sequence[Any]
Key: TypeAlias = tuple[str, str]
Statement: TypeAlias = tuple[str, Params] | tuple[str, Params, Key]
Done: TypeAlias = Callable[[BaseException | None], None]

MAX_BATCH = 512
IDLE_EXIT_S = 5.0


class GroupCommit:
    """Commits statements on ``connection`` (guarded by ``lock``) from one thread, in groups."""

    def __init__(self, connection: Connection, lock: threading.RLock, name: str = "evalui-store-writer", *,
                 bulk: bool = False):
        self._db, self._lock, self._name = connection, lock, name
        self._bulk = bulk  # SQLite with ->>: runs of BulkSQL go over json_each (evalui.store.bulk)
        self._cond = threading.Condition()
        self._queue: list[_Write] = []
        self._queued: dict[int, _Write] = {}  # not taken by the writer yet: can still be amended
        self._submitted = self._committed = 0
        self._errors: dict[int, BaseException] = {}  # for writers that wait
        self._unreported: BaseException | None = None  # a failed write nobody waits for
        self._thread: threading.Thread | None = None
        self._closed = False
        self.commit_s = 0.0  # seconds the writer spent committing (evalui.run.phases); its thread alone adds

    def submit(self, statements: list[Statement], *, wait: bool = True, on_done: Done | None = None) -> int:
        """Queue one write (its statements commit together) and return its ticket. ``wait``:
        return once it is committed, raising its error; otherwise ``on_done(error or None)`` runs
        after the commit, on the writer thread."""
        write = _Write(statements, on_done, wait)
        if threading.current_thread() is self._thread:
            # A callback that writes: committing inline keeps the writer from waiting on itself.
            error = self._commit_each([write]).get(0)
            if on_done:
                on_done(error)
            if error and wait:
                raise error
            return 0
        with self._cond:
            if self._closed:
                raise sqlite3.ProgrammingError("the store is closed")
            self._submitted += 1
            write.ticket = ticket = self._submitted
            self._queue.append(write)
            self._queued[ticket] = write
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify_all()
            if not wait:
                return ticket
            while self._committed < ticket:
                self._cond.wait()
            error = self._errors.pop(ticket, None)
        if error:
            raise error
        return ticket

    def submit_many(self, writes: list[tuple[list[Statement], Done | None]]) -> None:
        """Queue several writes at once, none waited for: each still commits or fails on its own and
        has its own ``on_done``, but the writer is woken once for all of them."""
        if not writes:
            return
        if threading.current_thread() is self._thread:
            for statements, on_done in writes:
                self.submit(statements, wait=False, on_done=on_done)
            return
        with self._cond:
            if self._closed:
                raise sqlite3.ProgrammingError("the store is closed")
            for statements, on_done in writes:
                write = _Write(statements, on_done, False)
                self._submitted += 1
                write.ticket = self._submitted
                self._queue.append(write)
                self._queued[write.ticket] = write
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def amend(self, ticket: int, change: Callable[[list[Statement]], list[Statement]], on_done: Done | None) -> bool:
        """Rewrite a write that is still queued (``change`` maps its statements to new ones) and
        add a callback to it; False if the writer has taken it already. The runner folds a
        sample's verdict into its answer's write this way: one statement instead of two."""
        with self._cond:
            write = self._queued.get(ticket)
            if write is None:
                return False
            write.statements = change(write.statements)
            if on_done is not None:
                write.callbacks.append(on_done)
            return True

    def flush(self) -> None:
        """Wait until every write queued so far is committed; raise a failure nobody was told of."""
        if threading.current_thread() is self._thread:
            return
        with self._cond:
            target = self._submitted
            while self._committed < target:
                self._cond.wait()
            error, self._unreported = self._unreported, None
        if error:
            raise error

    def close(self) -> None:
        self.flush()
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    # An idle writer ends (the next write starts another): a store that is never
                    # closed leaves no thread behind.
                    if not self._cond.wait(IDLE_EXIT_S) and not self._queue:
                        self._thread = None
                        return
                if not self._queue:
                    return
                batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
                for write in batch:
                    del self._queued[write.ticket]
            began = time.perf_counter()
            failures = self._commit_batch(batch)
            self.commit_s += time.perf_counter() - began
            # Callbacks first, then the writers that wait are let go: when flush() returns, every
            # callback of what it waited for has run (the runner reads its counts then).
            for write in batch:
                for on_done in write.callbacks:
                    try:
                        on_done(failures.get(write.ticket))
                    except Exception:  # a progress callback's bug must not stop the writes of others
                        pass
            with self._cond:
                for write in batch:
                    error = failures.get(write.ticket)
                    if error is not None and write.wait:
                        self._errors[write.ticket] = error
                    elif error is not None and not write.callbacks and self._unreported is None:
                        self._unreported = error
                self._committed = batch[-1].ticket
                self._cond.notify_all()

    def _commit_batch(self, batch: list[_Write]) -> dict[int, BaseException]:
        with self._lock:
            try:
                self._execute([statement for write in batch for statement in write.statements])
                self._db.commit()
                return {}
            except Exception:
                self._db.rollback()
        # One bad write must not take the others with it: commit them one by one.
        return self._commit_each(batch)

    def _commit_each(self, batch: list[_Write]) -> dict[int, BaseException]:
        failures: dict[int, BaseException] = {}
        with self._lock:
            for write in batch:
                try:
                    self._execute(write.statements)
                    self._db.commit()
                except Exception as exc:
                    self._db.rollback()
                    failures[write.ticket] = exc
        return failures

    def _execute(self, statements: list[Statement]) -> None:
        once: dict[Key, tuple[str, Params, Key]] = {}
        # A sample's search documents come between its row updates; gathered apart, the updates of
        # sample after sample form one run, and the documents another. Their order among themselves
        # is kept (the last upsert of a document wins), and nothing else in a write reads them.
        indexed: list[tuple[str, Params, Key]] = []
        # Runs of one statement (a sample's answer and verdict, sample after sample) go to the
        # driver in one executemany: its loop is in C, and a group may hold hundreds.
        run_sql: str | None = None
        run_rows: list[Params] = []
        for statement in statements:
            if len(statement) == 3:
                if statement[2][0] == "index":
                    indexed.append(statement)
                    continue
                once.pop(statement[2], None)  # keep the last one, at the end
                once[statement[2]] = statement
                continue
            sql, params = statement
            if sql != run_sql:
                self._execute_run(run_sql, run_rows)
                run_sql, run_rows = sql, []
            run_rows.append(params)
        self._execute_run(run_sql, run_rows)
        run_sql, run_rows = None, []
        for sql, params, _ in indexed:
            if sql != run_sql:
                self._execute_run(run_sql, run_rows)
                run_sql, run_rows = sql, []
            run_rows.append(params)
        self._execute_run(run_sql, run_rows)
        # Stored parts (evalui.store.parts) in one executemany, in the order of their keys:
        # two PostgreSQL writers inserting the same new parts then take them in one order, never
        # each waiting for the other's.
        parts = sorted((s for s in once.values() if _is_part(s[2])), key=lambda s: s[2])
        if parts:
            self._execute_run(parts[0][0], [params for _, params, _ in parts])
        for sql, params, key in once.values():
            if not _is_part(key):
                self._db.execute(sql, params)

    def _execute_run(self, sql: str | None, rows: list[Params]) -> None:
        if sql is None:
            return
        if len(rows) == 1:
            self._db.execute(sql, rows[0])
            return
        if self._bulk and isinstance(sql, BulkSQL) and len(rows) >= BULK_MIN_ROWS:
            form = bulk_sql(sql)
            array = bulk_rows(rows, form[1]) if form else None
            if form and array is not None:
                self._db.execute(form[0], (array,))
                return
        self._db.executemany(sql, rows)


def _is_part(key: object) -> bool:
    return isinstance(key, tuple) and bool(key) and key[0] == "part"


class _Write:
    __slots__ = ("ticket", "statements", "callbacks", "wait")

    def __init__(self, statements: list[Statement], on_done: Done | None, wait: bool):
        self.ticket, self.statements, self.wait = 0, statements, wait
        self.callbacks = [on_done] if on_done is not None else []
