"""The sandbox interface: what the GAIA agent's python tool needs from any place that runs code.

A container or a remote sandbox plugs in by implementing ``Sandbox.open`` and ``Session.run``;
nothing else in evalui knows how code is isolated.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    wall_s: float = 30.0  # the tool timeout: the program is killed when it passes
    cpu_s: int | None = None  # None: a little over the wall-clock limit, so the timeout is what stops a busy loop
    memory_bytes: int = 1024 * MB  # address space of each process
    processes: int = 64  # processes (and threads) of one program, all together
    task_memory_bytes: int | None = None  # memory of all its processes together; None: memory_bytes
    file_bytes: int = 64 * MB  # largest file the program may write (its output included)
    output_chars: int = 10_000  # stdout and stderr each, as returned to the model

    @property
    def task_memory(self) -> int:
        return self.task_memory_bytes if self.task_memory_bytes is not None else self.memory_bytes

    @property
    def cpu_seconds(self) -> int:
        return self.cpu_s if self.cpu_s is not None else int(self.wall_s) + 2


@dataclass(frozen=True)
class Execution:
    """What one program did, in words the model can read."""

    stdout: str
    stderr: str
    exit_code: int | None  # None when it was killed
    duration_s: float
    timed_out: bool = False
    stopped: str = ""  # why it was stopped, when it was (timeout, CPU limit, memory, file size, cancel)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.stopped


class Session(Protocol):
    """One task's sandbox: a working folder that lives until ``close``, and programs run in it."""

    def run(self, code: str, limits: Limits) -> Execution: ...

    def close(self) -> None: ...


class Sandbox(Protocol):
    def open(self, files: dict[str, Path]) -> Session:
        """A fresh session whose working folder holds ``files`` ({name in the folder: source path})."""
        ...
