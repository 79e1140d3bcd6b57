"""The last line every command prints: its JSON summary, judged by the CI gate when one is asked for.

A module of its own so that the commands import it without importing the package that imports
them (``evalui.cli`` builds the parser from every command).
"""

from __future__ import annotations

import contextvars
import json
import sys

# The CI gate of the command being run: the run commands print their summary through print_summary,
# which is where the gate judges the finished run, so no run command has to know about it.
active_gate = contextvars.ContextVar("evalui_gate", default=None)


def print_summary(summary: dict) -> None:
    """The JSON summary is always the last line printed, so scripts can read it with tail -1.
    With gate flags, the gate's verdict is part of it (``gate``)."""
    gate = active_gate.get()
    if gate is not None:
        summary = {**summary, "gate": gate.check(summary)}
    sys.stdout.flush()
    print(json.dumps(summary, ensure_ascii=False), flush=True)
