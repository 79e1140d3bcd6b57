"""Workers that share a run: who works on it, which samples each has claimed, and cancel requests.

A worker (a CLI process, or a dashboard's run thread) joins a run, then claims a few samples at a
time before it asks the model about them. A claim is a lease: the worker renews it while it lives
(evalui.run.claims), so the samples of a worker killed with ``kill -9`` become claimable again
once their lease runs out. PostgreSQL claims with ``SELECT … FOR UPDATE SKIP LOCKED`` (claimers
never wait for each other); SQLite with one conditional ``UPDATE``, which SQLite runs under its
write lock, so two claimers can never take the same sample.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterable
from typing import Protocol

from evalui.settings import read
from evalui.store.rows import Sample
from evalui.store.sql import first_row
from evalui.store.store_core import StoreCore

# A worker on another machine whose heartbeat is older than this is taken for dead.
STALE_AFTER_S = 30.0
_UNFINISHED = "stage IN ('init', 'rollout')"


def lease_seconds() -> float:
    """How long a claim lasts without renewal (EVALUI_LEASE_S, default 60 s)."""
    return read("lease_s")


def _real(quoted: str) -> float | None:
    """A REAL as SQLite's quote() writes it (every digit, or NULL)."""
    return None if quoted == "NULL" else float(quoted)


def process_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_alive(owner: str | None, heartbeat_at: float | None, now: float | None = None) -> bool:
    """Whether the process named ``host:pid[:tag]`` still works: on this machine its pid says so at
    once; elsewhere its heartbeat must be recent."""
    if not owner:
        return False
    host, _, rest = owner.partition(":")
    pid = rest.split(":", 1)[0]
    fresh = heartbeat_at is not None and (now or time.time()) - heartbeat_at < STALE_AFTER_S
    if host == socket.gethostname() and pid.isdigit():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass  # alive, and someone else's
        return heartbeat_at is None or fresh
    return fresh


class _Claims(StoreCore, Protocol):
    """What the claims use of RunStore: its core, and these methods themselves."""

    def live_workers(self, exp_id: str) -> list[str]: ...

    def cancel_count(self, exp_id: str) -> int: ...

    def claim_keys(self, exp_id: str, worker_id: str, limit: int) -> list[tuple[str, float | None]]: ...

    def samples_by_id(self, exp_id: str, sample_ids: Iterable[str]) -> dict[str, Sample]: ...


class ClaimsMixin:
    """The run store's part for shared runs (mixed into RunStore, which provides _db, _lock, _read…:
    its methods take ``self`` as StoreCore, so mypy checks what they use of RunStore)."""

    def join_run(self: StoreCore, exp_id: str, worker_id: str) -> int:
        """Register ``worker_id`` as working on the run (status running); returns the run's cancel
        count, so that a later cancel from any dashboard is noticed."""
        self.flush()
        now = time.time()
        with self._lock:
            try:
                self._db.execute("UPDATE experiments SET status = 'running', owner = ?, heartbeat_at = ?, updated_at = ?"
                                 " WHERE exp_id = ?", (worker_id, now, now, exp_id))
                self._db.execute("INSERT INTO workers (exp_id, worker_id, heartbeat_at) VALUES (?, ?, ?)"
                                 " ON CONFLICT (exp_id, worker_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
                                 (exp_id, worker_id, now))
                row = self._db.execute("SELECT cancel_seq FROM experiments WHERE exp_id = ?", (exp_id,)).fetchone()
                self._db.commit()
            except BaseException:
                self._db.rollback()
                raise
        self._joined[exp_id] = worker_id
        return row["cancel_seq"] if row else 0

    def worker_on(self: StoreCore, exp_id: str) -> str | None:
        """The worker this store last joined to ``exp_id`` (this process's worker on it)."""
        return self._joined.get(exp_id)

    def beat(self: _Claims, exp_id: str, worker_id: str) -> int:
        """Show life and renew the leases of this worker's unfinished claims; returns the cancel count."""
        now = time.time()
        self._writer.submit([
            ("UPDATE workers SET heartbeat_at = ? WHERE exp_id = ? AND worker_id = ?", (now, exp_id, worker_id)),
            ("UPDATE experiments SET heartbeat_at = ? WHERE exp_id = ?", (now, exp_id)),
            (f"UPDATE samples SET lease_until = ? WHERE exp_id = ? AND claimed_by = ? AND {_UNFINISHED}",
             (now + lease_seconds(), exp_id, worker_id)),
        ])
        return self.cancel_count(exp_id)

    def cancel_count(self: StoreCore, exp_id: str) -> int:
        rows = self._read("SELECT cancel_seq FROM experiments WHERE exp_id = ?", (exp_id,))
        return rows[0]["cancel_seq"] if rows else 0

    def request_cancel(self: _Claims, exp_id: str) -> bool:
        """Ask every worker of the run, in any process or replica, to stop; False if none works on it."""
        if not self.live_workers(exp_id):
            return False
        self._write("UPDATE experiments SET cancel_seq = cancel_seq + 1, updated_at = ? WHERE exp_id = ?",
                    (time.time(), exp_id))
        return True

    def claim_samples(self: _Claims, exp_id: str, worker_id: str, limit: int) -> list[Sample]:
        """Lease up to ``limit`` unfinished samples nobody holds (or whose lease ran out), in order."""
        found = self.samples_by_id(exp_id, [sample_id for sample_id, _ in self.claim_keys(exp_id, worker_id, limit)])
        return sorted(found.values(), key=lambda sample: sample.position)

    def claim_keys(self: StoreCore, exp_id: str, worker_id: str, limit: int) -> list[tuple[str, float | None]]:
        """``claim_samples``' lease, giving back only each claimed sample's id and ``updated_at``, in
        order: a worker that read the run's samples already (evalui.run.claims) takes them from
        there, unless ``updated_at`` says another worker wrote one since."""
        now = time.time()
        lease = (worker_id, now + lease_seconds(), exp_id)
        pick = (f"SELECT sample_id, updated_at, position FROM samples WHERE exp_id = ? AND {_UNFINISHED}"
                " AND (claimed_by IS NULL OR lease_until < ?) ORDER BY position LIMIT ?")
        with self._lock:
            try:
                if self.dialect == "postgresql":
                    # FOR UPDATE SKIP LOCKED: a row another claimer is taking is skipped, not waited for.
                    # ARRAY(...) runs the pick once. As a plain IN, the planner may rescan it for every
                    # row the UPDATE visits (a nested-loop semi join), each rescan locking the next free
                    # rows: a claim of 1 took every unclaimed sample.
                    ids = pick.replace("sample_id, updated_at, position", "sample_id", 1) + " FOR UPDATE SKIP LOCKED"
                    rows = self._db.execute(
                        "UPDATE samples SET claimed_by = ?, lease_until = ? WHERE exp_id = ? AND sample_id IN"
                        f" (SELECT unnest(ARRAY({ids}))) RETURNING sample_id, updated_at, position",
                        (*lease, exp_id, now, limit)).fetchall()
                    keys = sorted(((row["sample_id"], row["updated_at"], row["position"]) for row in rows),
                                  key=lambda key: key[2])
                else:
                    # The pick as one row (a JSON array), then the lease over it: RETURNING would hand
                    # the rows over one step at a time, each step taking the interpreter lock back
                    # from a run's busy event loop (a claim of 1,500 took a third of a second).
                    # BEGIN IMMEDIATE holds SQLite's write lock from the pick on, so no other process
                    # claims these rows in between. quote(): updated_at's every digit (JSON's REAL has 15).
                    self._db.execute("BEGIN IMMEDIATE")
                    picked = first_row(self._db.execute(
                        f"SELECT json_group_array(json_array(sample_id, quote(updated_at), position)) FROM ({pick})",
                        (exp_id, now, limit)))[0]
                    keys = [(sample_id, _real(quoted), position) for sample_id, quoted, position in json.loads(picked)]
                    if keys:
                        self._db.execute("UPDATE samples SET claimed_by = ?, lease_until = ? WHERE exp_id = ?"
                                         " AND sample_id IN (SELECT value ->> 0 FROM json_each(?))", (*lease, picked))
                self._db.commit()
            except BaseException:
                self._db.rollback()
                raise
        return [(sample_id, updated_at) for sample_id, updated_at, _ in keys]

    def held_elsewhere(self: StoreCore, exp_id: str, worker_id: str) -> float | None:
        """When the first lease held by another worker on an unfinished sample runs out (None: no such lease)."""
        rows = self._read(f"SELECT MIN(lease_until) AS next_expiry FROM samples WHERE exp_id = ? AND {_UNFINISHED}"
                          " AND claimed_by IS NOT NULL AND claimed_by != ? AND lease_until >= ?",
                          (exp_id, worker_id, time.time()))
        return rows[0]["next_expiry"] if rows else None

    def leave_run(self: _Claims, exp_id: str, worker_id: str) -> int:
        """Release this worker's unfinished claims and leave; returns how many other workers still live."""
        self.flush()
        self._writer.submit([
            (f"UPDATE samples SET claimed_by = NULL, lease_until = NULL WHERE exp_id = ? AND claimed_by = ?"
             f" AND {_UNFINISHED}", (exp_id, worker_id)),
            ("DELETE FROM workers WHERE exp_id = ? AND worker_id = ?", (exp_id, worker_id)),
        ])
        return len(self.live_workers(exp_id))

    def live_workers(self: StoreCore, exp_id: str) -> list[str]:
        rows = self._read("SELECT worker_id, heartbeat_at FROM workers WHERE exp_id = ?", (exp_id,))
        now = time.time()
        return [row["worker_id"] for row in rows if owner_alive(row["worker_id"], row["heartbeat_at"], now)]
