"""Which processes belong to one sandbox task, how much memory they hold together, and killing them.

A task's processes are named in one of three ways, whichever the sandbox child could set up:
``("ns", link)`` every process in the task's PID namespace (``link`` as /proc/PID/ns/pid reads);
``("uid", uid)`` every process whose real user id is the task's own (the sandbox run as root);
``("tree", pid)`` every descendant of the keeper ``pid``, which is a child subreaper, so orphans
(a double fork, ``setsid``) come back to it while it lives.
Standard library only, read from /proc: this runs in the sandbox child as well as in the server.
"""

from __future__ import annotations

import os
import signal
import time

PAGE = os.sysconf("SC_PAGE_SIZE")


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read()
    except OSError:  # the process ended meanwhile, or is not ours to read
        return ""


def _stat(pid: int) -> tuple[str, int]:
    """(state, parent pid) from /proc/PID/stat; the name before them may hold spaces and parentheses."""
    text = _read(f"/proc/{pid}/stat")
    fields = text[text.rfind(")") + 2:].split()
    return (fields[0], int(fields[1])) if len(fields) > 1 else ("", 0)


def _real_uid(pid: int) -> int | None:
    for line in _read(f"/proc/{pid}/status").splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    return None


def _namespace(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return ""


def members(kind: str, value, exclude: int | None = None) -> list[int]:
    """The living (not zombie) processes of the task named by ``(kind, value)``."""
    own = os.getpid()
    if kind == "tree":
        children: dict[int, list[int]] = {}
        for pid in _pids():
            state, parent = _stat(pid)
            if state and state not in "ZX":
                children.setdefault(parent, []).append(pid)
        found, queue = [], list(children.get(value, []))
        while queue:
            pid = queue.pop()
            found.append(pid)
            queue.extend(children.get(pid, []))
    elif kind == "uid":
        found = [pid for pid in _pids() if _real_uid(pid) == value and _stat(pid)[0] not in ("", "Z", "X")]
    elif kind == "ns":
        found = [pid for pid in _pids() if _namespace(pid) == value and _stat(pid)[0] not in ("", "Z", "X")]
    else:
        raise ValueError(kind)
    return [pid for pid in found if pid not in (own, exclude)]


def resident_bytes(pids: list[int]) -> int:
    """Resident memory summed over the processes: pages shared after a fork count once per process."""
    total = 0
    for pid in pids:
        fields = _read(f"/proc/{pid}/statm").split()
        total += int(fields[1]) * PAGE if len(fields) > 1 else 0
    return total


def proportional_bytes(pids: list[int]) -> int:
    """Proportional set size summed: a shared page counts once in all (slower to read than RSS)."""
    total = 0
    for pid in pids:
        for line in _read(f"/proc/{pid}/smaps_rollup").splitlines():
            if line.startswith("Pss:"):
                total += int(line.split()[1]) * 1024
                break
    return total


def kill_all(kind: str, value, reap=None, exclude: int | None = None, limit_s: float = 10.0) -> int:
    """SIGKILL the task's processes until none is left (a forking one may add more meanwhile).

    ``reap`` (a function) collects the zombies of the caller's own children: the keeper, a
    subreaper, inherits the task's orphans. Returns how many kills were sent.
    """
    killed, deadline = 0, time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if reap is not None:
            reap()
        pids = members(kind, value, exclude)
        if not pids:
            return killed
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.005)
    return killed

