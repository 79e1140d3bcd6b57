"""A throwaway PostgreSQL server for the tests: Debian's binaries, a cluster in a temporary folder,
a free port on 127.0.0.1, run by an unprivileged user (initdb and postgres refuse root), torn down
at the end. It never touches a system cluster. Missing binaries fail the tests with a message:
`.ci/run` installs Debian's ``postgresql`` package.

    from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

UNPRIVILEGED_USERS = ("postgres", "nobody")


def postgres_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.fail("PostgreSQL binaries are missing (no /usr/lib/postgresql/*/bin/initdb): "
                    "install Debian's postgresql package (apt-get install -y postgresql); .ci/run does this")
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    def __init__(self):
        self.bin = postgres_bin()
        self.root = Path(tempfile.mkdtemp(prefix="evalui-pg-"))
        self.data, self.sockets = self.root / "data", self.root / "sockets"
        self.port = _free_port()
        self.process: subprocess.Popen | None = None
        self.user = None
        if os.geteuid() == 0:
            self.user = next((pwd.getpwnam(name) for name in UNPRIVILEGED_USERS if _user_exists(name)), None)
            if self.user is None:
                pytest.fail("running as root and no unprivileged user (postgres or nobody) to run PostgreSQL as")
        self.sockets.mkdir()
        for path in (self.root, self.sockets):
            if self.user:
                os.chown(path, self.user.pw_uid, self.user.pw_gid)

    def _as_user(self):
        if self.user is None:
            return None
        uid, gid = self.user.pw_uid, self.user.pw_gid

        def drop() -> None:  # in the child, before exec: never run the server as root
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)

        return drop

    def _env(self) -> dict:
        env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
        return {**env, "HOME": str(self.root), "LC_ALL": "C"}

    def start(self) -> PostgresServer:
        subprocess.run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "evalui", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True, preexec_fn=self._as_user(), env=self._env(),
                       cwd=self.root)
        self.log = (self.root / "server.log").open("wb")
        self.process = subprocess.Popen(
            [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port), "-k", str(self.sockets),
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=60"],
            stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=self._as_user(), env=self._env(), cwd=self.root)
        deadline = time.monotonic() + 30
        while subprocess.run([str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                             capture_output=True).returncode != 0:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("PostgreSQL did not start: " + (self.root / "server.log").read_text()[-2000:])
            time.sleep(0.1)
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://evalui@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database on this server; its URL."""
        import psycopg

        name = f"evalui_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            # SIGINT is PostgreSQL's fast shutdown: it ends client sessions (SIGTERM, the smart one,
            # would wait for every client, such as a worker a failed test left behind).
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if getattr(self, "log", None):
            self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


@pytest.fixture(scope="session")
def postgres_server():
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture()
def pg_url(postgres_server) -> str:
    """The URL of a fresh database on the session's throwaway PostgreSQL server."""
    return postgres_server.new_database()
