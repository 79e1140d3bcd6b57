"""A Space keeps its data: the store and the run folders, synced to a private Hub dataset.

A Space's disk is wiped on restart. With ``EVALUI_HUB_SYNC=<owner/dataset>`` and a token
(``EVALUI_HUB_TOKEN``, else ``HF_TOKEN``), the dashboard restores the store, ``runs/`` (exports
and generated AIME files with their ``_verifications.json`` reviews) and ``uploads/`` from that
dataset when it starts, and then commits what changed every few minutes
(``EVALUI_HUB_SYNC_MINUTES``, default 5) and at the end of every run.

A SQLite store is copied with SQLite's online backup API first: the database file of a WAL store
alone may miss every recent commit. A PostgreSQL store keeps itself; only the folders are synced.
Keys are never uploaded: a file that contains the value of any key or token of the environment is
left out of the commit, and the log names the file, never the value.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from evalui.run import events
from evalui.settings import read

HUB_SYNC_ENV = "EVALUI_HUB_SYNC"
TOKEN_ENVS = ("EVALUI_HUB_TOKEN", "HF_TOKEN")  # the token of the sync, else the Hub's own
DEFAULT_INTERVAL_MIN = 5.0
STORE_IN_REPO = "store/evalui.sqlite"
FOLDERS = ("runs", "uploads")
# Lock files of the review saves and half-written temporary files are not data.
SKIPPED_SUFFIXES = (".lock", ".tmp", ".part")
SECRET_NAME_HINTS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
MIN_SECRET_LEN = 8

_active: HubSync | None = None  # the dashboard's running sync (None elsewhere); set by start_from_env


def log(message: str) -> None:
    print(f"evalui hub sync: {message}", file=sys.stderr, flush=True)


def secrets_of_environment() -> list[str]:
    """Values that must never leave the machine: every key, token, secret or password in the
    environment, and the password of a database URL."""
    from urllib.parse import urlsplit

    values = [value for name, value in os.environ.items()
              if any(hint in name.upper() for hint in SECRET_NAME_HINTS) and len(value) >= MIN_SECRET_LEN]
    database = read("database_url")
    if database and (password := urlsplit(database).password):
        values.append(password)
    return values


@dataclass
class HubSync:
    repo_id: str
    token: str | None
    data_folder: Path
    store_path: Path | None  # the SQLite store; None for PostgreSQL
    endpoint: str | None = None
    interval_s: float = DEFAULT_INTERVAL_MIN * 60
    sent: dict[str, str] = field(default_factory=dict)  # path in repo -> sha256 of what the Hub has
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _wake: threading.Event = field(default_factory=threading.Event, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)
    _repo_ready: bool = False

    @classmethod
    def from_env(cls) -> HubSync | None:
        repo_id = read("hub_sync")
        if not repo_id:
            return None
        from evalui.config import data_dir
        from evalui.store.sql import database_url, is_postgres, sqlite_path

        url = database_url()
        store_path = None if is_postgres(url) else (sqlite_path(url) if url else data_dir() / "evalui.sqlite")
        own = read("hub_token")
        token = own.get_secret_value() if own is not None else os.environ.get("HF_TOKEN") or None
        minutes = read("hub_sync_minutes")
        return cls(repo_id, token, data_dir(), store_path, os.environ.get("HF_ENDPOINT"), minutes * 60)

    def _api(self):
        from huggingface_hub import HfApi

        return HfApi(endpoint=self.endpoint, token=self.token)

    # restore -------------------------------------------------------------------------------------
    def restore(self) -> list[str]:
        """Bring back what the dataset holds and this machine lacks; returns the paths restored.
        Run it before the store is opened. An existing local store with runs is never replaced."""
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import RepositoryNotFoundError

        with tempfile.TemporaryDirectory(prefix="evalui-restore-") as scratch:
            try:
                snapshot_download(self.repo_id, repo_type="dataset", local_dir=scratch, token=self.token,
                                  endpoint=self.endpoint, cache_dir=Path(scratch) / ".cache")
            except RepositoryNotFoundError:
                return []  # the first start: nothing synced yet
            restored = []
            for source in sorted(Path(scratch).rglob("*")):
                name = source.relative_to(scratch).as_posix()
                if not source.is_file() or name.startswith(".cache/"):
                    continue
                self.sent[name] = _sha256(source)
                if name == STORE_IN_REPO:
                    if self.store_path is not None and not _has_runs(self.store_path):
                        for leftover in (self.store_path.with_name(self.store_path.name + s) for s in ("-wal", "-shm")):
                            leftover.unlink(missing_ok=True)
                        self.store_path.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(source, self.store_path)
                        restored.append(name)
                elif name.split("/", 1)[0] in FOLDERS:
                    target = self.data_folder / name
                    if not target.exists():
                        target.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(source, target)
                        restored.append(name)
        return restored

    # sync ----------------------------------------------------------------------------------------
    def sync(self) -> dict:
        """Commit every file that changed since the last sync (and delete what was deleted here)."""
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete

        with self._lock:
            staging = self.data_folder / ".hub_sync"
            staging.mkdir(exist_ok=True)
            files = self._files(staging)
            secrets = secrets_of_environment()
            changes, hashes, withheld = [], {}, []
            for name, path in files.items():
                data = path.read_bytes()
                if any(secret.encode() in data for secret in secrets):
                    withheld.append(name)
                    continue
                hashes[name] = digest = hashlib.sha256(data).hexdigest()
                if self.sent.get(name) != digest:
                    changes.append(CommitOperationAdd(path_in_repo=name, path_or_fileobj=data))
            for name in withheld:
                log(f"{name} holds a key or token of this server's environment: not uploaded")
            gone = [name for name in self.sent if name not in files and name.split("/", 1)[0] in FOLDERS]
            changes += [CommitOperationDelete(path_in_repo=name) for name in gone]
            if changes:
                api = self._api()
                if not self._repo_ready:
                    api.create_repo(self.repo_id, repo_type="dataset", private=True, exist_ok=True)
                    self._repo_ready = True
                api.create_commit(self.repo_id, changes, repo_type="dataset",
                                  commit_message=f"evalui sync: {len(changes)} file(s)")
                self.sent.update(hashes)
                for name in gone:
                    self.sent.pop(name, None)
            return {"uploaded": sum(isinstance(c, CommitOperationAdd) for c in changes), "deleted": len(gone),
                    "withheld": withheld}

    def _files(self, staging: Path) -> dict[str, Path]:
        files = {}
        if self.store_path is not None and self.store_path.exists():
            copy = staging / "evalui.sqlite"
            _backup_sqlite(self.store_path, copy)
            files[STORE_IN_REPO] = copy
        for folder in FOLDERS:
            root = self.data_folder / folder
            if root.is_dir():
                for path in sorted(root.rglob("*")):
                    if path.is_file() and not path.name.endswith(SKIPPED_SUFFIXES):
                        files[path.relative_to(self.data_folder).as_posix()] = path
        return files

    # the schedule --------------------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="evalui-hub-sync", daemon=True)
        self._thread.start()

    def request(self) -> None:
        """Sync soon (the end of a run), on the sync's own thread."""
        self._wake.set()

    def stop(self, final_sync: bool = True) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
        if final_sync:
            self._sync_logged()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.interval_s)
            self._wake.clear()
            if not self._stop.is_set():
                self._sync_logged()

    def _sync_logged(self) -> None:
        try:
            done = self.sync()
            if done["uploaded"] or done["deleted"]:
                log(f"{done['uploaded']} file(s) uploaded, {done['deleted']} deleted")
        except Exception as exc:  # the Hub down or the token refused: the next round tries again
            log(f"failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _backup_sqlite(source: Path, target: Path) -> None:
    """A consistent copy of a live SQLite store, WAL content included."""
    partial = target.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    src, dst = sqlite3.connect(source, timeout=30), sqlite3.connect(partial)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    partial.replace(target)


def _has_runs(path: Path) -> bool:
    if not path.exists():
        return False
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return bool(db.execute("SELECT 1 FROM experiments LIMIT 1").fetchone())
    except sqlite3.Error:
        return False


def start_from_env() -> HubSync | None:
    """At dashboard start: restore from the dataset, then sync on a schedule. None when not asked."""
    global _active
    sync = HubSync.from_env()
    if sync is None:
        return None
    if not sync.token:
        log(f"{HUB_SYNC_ENV} is set but no token ({' or '.join(TOKEN_ENVS)}): not syncing")
        return None
    try:
        restored = sync.restore()
        log(f"restored {len(restored)} file(s) from {sync.repo_id}")
    except Exception as exc:
        log(f"restore failed: {type(exc).__name__}")
    sync.start()
    _active = sync
    listen_for_runs()
    return sync


def listen_for_runs() -> None:
    """Sync after every run that ends in this process (the CLI and the dashboard both install it)."""
    events.on_run_finished(after_run)


def after_run(exp_id: str = "") -> None:
    """The end of a run: the dashboard's sync runs soon; a CLI run with the variable set syncs now."""
    if _active is not None:
        _active.request()
        return
    sync = HubSync.from_env()
    if sync is not None and sync.token:
        sync._sync_logged()
