"""A generated AIME file as the judge and win-rate steps read it (below both the specs and run.py)."""

from __future__ import annotations

from pathlib import Path

from evalui.errors import InputError
from evalui.jsonl import read_json_array


def read_problems(path: str | Path) -> list[dict]:
    """A generated file: a JSON array of problems with problem_id, problem and answer."""
    problems = read_json_array(path, "problems")
    for index, problem in enumerate(problems, start=1):
        if not isinstance(problem, dict) or not {"problem_id", "problem", "answer"} <= set(problem):
            raise InputError(f"problem {index} needs problem_id, problem and answer", path=str(path))
    return problems
