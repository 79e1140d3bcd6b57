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
from collections.abc import Callable, Sequence

Statement = tuple[str, Sequence]
Done = Callable[[BaseException | None], None]

MAX_BATCH = 512
IDLE_EXIT_S = 5.0


class GroupCommit:
    """Commits statements on ``connection`` (guarded by ``lock``) from one thread, in groups."""

    def __init__(self, connection: sqlite3.Connection, lock: threading.RLock, name: str = "evalui-store-writer"):
        self._db, self._lock, self._name = connection, lock, name
        self._cond = threading.Condition()
        self._queue: list[tuple[int, list[Statement], Done | None, bool]] = []
        self._submitted = self._committed = 0
        self._errors: dict[int, BaseException] = {}  # for writers that wait
        self._unreported: BaseException | None = None  # a failed write nobody waits for
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, statements: list[Statement], *, wait: bool = True, on_done: Done | None = None) -> None:
        """Queue one write (its statements commit together). ``wait``: return once it is
        committed, raising its error; otherwise ``on_done(error or None)`` runs after the commit,
        on the writer thread."""
        if threading.current_thread() is self._thread:
            # A callback that writes: committing inline keeps the writer from waiting on itself.
            error = self._commit_each([(0, statements, None, wait)]).get(0)
            if on_done:
                on_done(error)
            if error and wait:
                raise error
            return
        with self._cond:
            if self._closed:
                raise sqlite3.ProgrammingError("the store is closed")
            self._submitted += 1
            ticket = self._submitted
            self._queue.append((ticket, statements, on_done, wait))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify_all()
            if not wait:
                return
            while self._committed < ticket:
                self._cond.wait()
            error = self._errors.pop(ticket, None)
        if error:
            raise error

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
            failures = self._commit_batch(batch)
            # Callbacks first, then the writers that wait are let go: when flush() returns, every
            # callback of what it waited for has run (the runner reads its counts then).
            for ticket, _, on_done, _ in batch:
                if on_done is not None:
                    try:
                        on_done(failures.get(ticket))
                    except Exception:  # a progress callback's bug must not stop the writes of others
                        pass
            with self._cond:
                for ticket, _, on_done, wait in batch:
                    error = failures.get(ticket)
                    if error is not None and wait:
                        self._errors[ticket] = error
                    elif error is not None and on_done is None and self._unreported is None:
                        self._unreported = error
                self._committed = batch[-1][0]
                self._cond.notify_all()

    def _commit_batch(self, batch) -> dict[int, BaseException]:
        with self._lock:
            try:
                for _, statements, _, _ in batch:
                    for sql, params in statements:
                        self._db.execute(sql, params)
                self._db.commit()
                return {}
            except Exception:
                self._db.rollback()
        # One bad write must not take the others with it: commit them one by one.
        return self._commit_each(batch)

    def _commit_each(self, batch) -> dict[int, BaseException]:
        failures = {}
        with self._lock:
            for ticket, statements, _, _ in batch:
                try:
                    for sql, params in statements:
                        self._db.execute(sql, params)
                    self._db.commit()
                except Exception as exc:
                    self._db.rollback()
                    failures[ticket] = exc
        return failures
