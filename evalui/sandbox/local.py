"""The sandbox evalui ships: each program in a fresh subprocess, confined as far as Linux allows.

What it does:
- a session's working folder is a new temporary folder (mode 700) outside the data folder, holding
  the task's files; programs start there with HOME and TMPDIR inside the session;
- the environment is built from nothing: no variable of the server (keys, HF_TOKEN, EVALUI_*) is passed;
- CPU time, address space and file size are limited per process with setrlimit; the task's
  processes are bounded in number (RLIMIT_NPROC counted per task, and pids.max where a cgroup v2
  is offered) and in memory all together (memory.max, else the child's watch of their resident
  memory); at the wall-clock timeout, on cancel and when the program ends, every process of the
  task is killed, ``setsid`` ones too (a PID namespace, a cgroup, or the task's own user id);
- where the kernel has Landlock, the program can read only the interpreter, its libraries and
  system files (never the data folder, the current folder or the checkout, see ``readable``),
  write only its session, open no TCP connection and signal no outside process;
- as root, every capability is dropped first, so the limits cannot be raised again.
What it does not do: it is not a container. Without Landlock the program can read whatever the
server's user can read, by absolute path; UDP and Unix sockets are not confined; the machine's CPU
and disk are shared. ``child`` says which containment held where.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from functools import cache
from pathlib import Path

from evalui.sandbox import cgroup, landlock, processes, readable
from evalui.sandbox.base import Execution, Limits

CHILD = Path(__file__).resolve().parent / "child.py"
POLL_S = 0.05
STOP_GRACE_S = 5.0  # how long the child may take to kill its task when asked, before it is killed
# A task's own real user id when the server runs as root: above systemd's container ranges and below
# 2**31; one with a passwd entry or a living process is never taken (kill_all kills by it).
UID_RANGE = (0x70000000, 0x7FFE0000)


@cache
def landlock_abi() -> int:
    return landlock.abi_version()


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def sandbox_root(forbidden: Path | None) -> Path:
    """Where sessions are made: the system's temporary folder, unless that lies in ``forbidden``."""
    for candidate in (tempfile.gettempdir(), "/tmp", "/var/tmp"):
        path = Path(candidate).resolve()
        if path.is_dir() and not (forbidden and _inside(path, forbidden)):
            return path
    raise RuntimeError("no temporary folder outside the data folder for the sandbox")


def clean_environment(session: Path) -> dict[str, str]:
    """The program's whole environment: nothing is inherited from the server."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(session / "work"), "TMPDIR": str(session / "tmp"),
            "USER": "sandbox", "LOGNAME": "sandbox",  # getpass.getuser() without a passwd entry for the task's uid
            "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _read_capped(path: Path, chars: int) -> str:
    with path.open("rb") as handle:
        raw = handle.read(4 * chars + 4)
    size = path.stat().st_size
    text = raw.decode("utf-8", errors="replace")
    if len(text) > chars or size > len(raw):
        return text[:chars] + f"\n… (truncated: {size} bytes in all, {chars} characters shown)"
    return text


class LocalSession:
    def __init__(self, root: Path, files: dict[str, Path], cancel: threading.Event | None,
                 readable_roots: list[str], namespaces: bool = True):
        self.folder = Path(tempfile.mkdtemp(prefix="evalui-sandbox-", dir=root))
        self.work = self.folder / "work"
        for part in ("work", "tmp", "run"):
            (self.folder / part).mkdir()
        for name, source in files.items():
            shutil.copyfile(source, self.work / Path(name).name)
        self.cancel = cancel
        self.readable_roots = readable_roots
        self.namespaces = namespaces
        self.held: dict = {}  # what contained the last program (see child.py), for reports and tests
        self.task_uid = _free_uid() if os.geteuid() == 0 else None  # the task's own, for all its programs
        self._runs = 0

    def run(self, code: str, limits: Limits) -> Execution:
        self._runs += 1
        run_dir = self.folder / "run"
        program = run_dir / f"program_{self._runs}.py"
        program.write_text(code, encoding="utf-8")
        status_path = run_dir / f"status_{self._runs}.json"
        task_uid = self.task_uid
        group = _task_cgroup(limits)
        settings = {"cpu_s": limits.cpu_seconds, "memory_bytes": limits.memory_bytes, "file_bytes": limits.file_bytes,
                    "processes": limits.processes, "task_memory_bytes": limits.task_memory,
                    "program": str(program), "status_path": str(status_path), "task_uid": task_uid,
                    "cgroup": str(group.path) if group else "", "namespaces": self.namespaces,
                    "confine": landlock_abi() > 0, "read_only": [*self.readable_roots, str(run_dir)],
                    "read_write": [str(self.work), str(self.folder / "tmp")]}
        stdout_path, stderr_path = run_dir / f"stdout_{self._runs}", run_dir / f"stderr_{self._runs}"
        started = time.monotonic()
        try:
            with stdout_path.open("wb") as stdout, stderr_path.open("wb") as stderr:
                process = subprocess.Popen([sys.executable, "-I", "-u", str(CHILD), json.dumps(settings)],
                                           cwd=self.work, env=clean_environment(self.folder),
                                           stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                                           start_new_session=True, close_fds=True)
                stopped = self._wait(process, limits.wall_s)
        finally:
            status = _read_status(status_path)  # written once the child has killed the task's processes
            if task_uid is not None and not status:  # the child died before its own clean-up
                processes.kill_all("uid", task_uid)
            if group is not None:
                stopped_by_kernel = group.stopped()
                group.close()
        duration = time.monotonic() - started
        code_ = process.returncode
        err = _read_capped(stderr_path, limits.output_chars)
        self.held = {**status.get("held", {}), "cgroup_limits": group is not None}
        if not stopped:
            stopped = (status.get("stopped") or (stopped_by_kernel if group is not None else "")
                       or _why_stopped(code_, err))
        return Execution(stdout=_read_capped(stdout_path, limits.output_chars), stderr=err,
                         exit_code=None if code_ is None or code_ < 0 else code_, duration_s=duration,
                         timed_out=stopped.startswith("timeout"), stopped=stopped)

    def _wait(self, process: subprocess.Popen, wall_s: float) -> str:
        deadline = time.monotonic() + wall_s
        reason = ""
        while process.poll() is None:
            if time.monotonic() >= deadline:
                reason = f"timeout: stopped after {wall_s:g} s"
                break
            if self.cancel is not None and self.cancel.is_set():
                reason = "cancelled: the run was cancelled"
                break
            time.sleep(POLL_S)
        if reason:  # the child kills every process of the task, then exits
            try:
                process.send_signal(signal.SIGTERM)
                process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                pass
        _kill_group(process.pid)  # the child itself, if it did not exit
        process.wait()
        return reason

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _free_uid() -> int:
    while True:
        uid = UID_RANGE[0] + secrets.randbelow(UID_RANGE[1] - UID_RANGE[0])
        try:
            pwd.getpwuid(uid)
        except KeyError:
            if not processes.members("uid", uid):
                return uid


def _task_cgroup(limits: Limits) -> cgroup.TaskCgroup | None:
    parent = cgroup.base()
    if parent is None:
        return None
    try:  # the child and init are in it too
        return cgroup.TaskCgroup(parent, processes=limits.processes + 2, memory_bytes=limits.task_memory)
    except OSError:
        return None


def _read_status(path: Path) -> dict:
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _why_stopped(exit_code: int | None, stderr: str) -> str:
    if exit_code is not None and exit_code < 0:
        name = {signal.SIGXCPU: "CPU time limit", signal.SIGKILL: "killed (CPU time or memory limit)",
                signal.SIGXFSZ: "file size limit", signal.SIGSEGV: "crashed (segmentation fault)"}
        return name.get(-exit_code, f"killed by signal {-exit_code}")
    if exit_code and "MemoryError" in stderr[-2000:]:
        return "memory limit: the program ran out of memory"
    return ""


def _default_data_dir() -> Path:
    # The environment itself, not evalui.settings: the sandbox needs the standard library alone
    # (a server may run it under the system python); evalui.settings declares the variable.
    return Path(os.environ.get("EVALUI_DATA_DIR", "").strip() or "evalui_data").expanduser().resolve()


class LocalSandbox:
    """``open`` makes a session; ``forbidden`` (the data folder) never holds one, and no program reads it.

    ``namespaces=False`` leaves out the user and PID namespaces, as on a machine that refuses them.
    """

    def __init__(self, forbidden: Path | None = None, cancel: threading.Event | None = None, namespaces: bool = True):
        self.root = sandbox_root(forbidden.resolve() if forbidden else None)
        self.cancel = cancel
        self.namespaces = namespaces
        data = [forbidden.resolve()] if forbidden else []
        self.readable_roots = readable.read_only_roots(data + [_default_data_dir()], self.root)

    def open(self, files: dict[str, Path]) -> LocalSession:
        return LocalSession(self.root, files, self.cancel, self.readable_roots, self.namespaces)

    @staticmethod
    def isolation() -> str:
        return ("subprocess with a clean environment, rlimits, a process-count and a total-memory bound, and a kill "
                "of every process of the task at its end"
                + ("; cgroup v2 limits" if cgroup.base() else "")
                + (f"; Landlock ABI {landlock_abi()}: read-only system, own folder writable, no TCP" if landlock_abi()
                   else "; no Landlock on this kernel: the file system is not confined"))
