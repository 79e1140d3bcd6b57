"""A cgroup v2 per sandbox task, where the machine offers one: the kernel bounds the task's processes
(pids.max) and memory (memory.max, no swap), and ``cgroup.kill`` ends them all at once.

It needs a cgroup v2 folder this process may write whose controllers include ``pids`` and
``memory``, and that holds no process (the kernel hands controllers only to the children of a
cgroup without members). Either the operator names one, delegated to evalui's user, in
EVALUI_SANDBOX_CGROUP, or evalui runs in the root cgroup of a writable cgroup v2 hierarchy (a
privileged container, root on a host) and makes ``evalui-sandbox`` there. Elsewhere (cgroup v1,
read-only /sys/fs/cgroup, a cgroup with members) there is none, and the sandbox child's own
means hold: namespaces, RLIMIT_NPROC and its memory watch.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from functools import cache
from pathlib import Path

CGROUP_ENV = "EVALUI_SANDBOX_CGROUP"
NEEDED = ("pids", "memory")


def _mount() -> Path | None:
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        left, _, right = line.partition(" - ")
        if right.split()[:1] == ["cgroup2"]:
            return Path(left.split()[4])
    return None


def _own() -> str | None:
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    return next((line[3:] for line in lines if line.startswith("0::")), None)


def _enable(folder: Path) -> None:
    """Hand pids and memory to the children of ``folder`` (raises OSError where it cannot)."""
    offered = (folder / "cgroup.controllers").read_text().split()
    if not all(name in offered for name in NEEDED):
        raise OSError(f"{folder} does not offer {' and '.join(NEEDED)}")
    enabled = (folder / "cgroup.subtree_control").read_text().split()
    missing = [name for name in NEEDED if name not in enabled]
    if missing:
        (folder / "cgroup.subtree_control").write_text(" ".join(f"+{name}" for name in missing))


@cache
def base() -> Path | None:
    """The folder task cgroups are made in, or None where the machine offers none (worked out once)."""
    try:
        # Read here, not through evalui.settings: the sandbox runs under a system python with the
        # standard library alone (no pydantic); evalui.settings declares the variable for the docs.
        named = os.environ.get(CGROUP_ENV, "").strip()
        if named:
            folder = Path(named)
        else:
            mount, own = _mount(), _own()
            if mount is None or own != "/":
                return None
            _enable(mount)
            folder = mount / "evalui-sandbox"
            folder.mkdir(exist_ok=True)
        _enable(folder)
        probe = TaskCgroup(folder, processes=8, memory_bytes=64 * 2**20)
        probe.close()
        return folder
    except OSError:
        return None


class TaskCgroup:
    """One task's cgroup: made with its limits, joined by the sandbox child, killed and removed at the end."""

    def __init__(self, parent: Path, processes: int, memory_bytes: int):
        self.path = parent / f"task-{uuid.uuid4().hex[:16]}"
        self.path.mkdir()
        try:
            (self.path / "pids.max").write_text(str(processes))
            (self.path / "memory.max").write_text(str(memory_bytes))
            for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                if (self.path / name).exists():
                    (self.path / name).write_text(value)
        except OSError:
            self.path.rmdir()
            raise

    def _events(self, name: str) -> dict[str, int]:
        try:
            return {k: int(v) for k, v in (line.split() for line in (self.path / name).read_text().splitlines())}
        except (OSError, ValueError):
            return {}

    def stopped(self) -> str:
        """Why the kernel stopped the task, if it did."""
        if self._events("memory.events").get("oom_kill", 0):
            return "memory limit: the task's processes used all the memory allowed (cgroup)"
        return ""

    def processes(self) -> list[int]:
        try:
            return [int(pid) for pid in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def close(self, limit_s: float = 10.0) -> None:
        """Kill every process in the cgroup, wait for it to empty, remove it."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            if not self.processes():
                break
            try:
                (self.path / "cgroup.kill").write_text("1")
            except OSError:  # before Linux 5.14: one by one
                for pid in self.processes():
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            time.sleep(0.01)
        try:
            self.path.rmdir()
        except OSError:
            pass
