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
