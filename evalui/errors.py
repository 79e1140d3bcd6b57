"""Errors that carry a message meant for a person, not a traceback."""

from __future__ import annotations


class InputError(Exception):
    """Bad user input: a file, a line, a flag. The CLI prints it on one line and exits non-zero."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{message}")


class DamagedRun(InputError):
    """A stored sample that cannot be read or used as it stands (a part it refers to is missing, a
    verdict of the wrong shape, an id its benchmark does not have): a damaged or tampered store. It
    names the run and the sample, so that the one line the CLI prints says where to look."""

    def __init__(self, exp_id: str, sample_id: str, problem: str):
        self.exp_id = exp_id
        self.sample_id = sample_id
        super().__init__(f"run {exp_id!r}, sample {sample_id!r}: {problem}")
