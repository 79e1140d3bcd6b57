"""What the offline operations on a stored run (scan, rescore, export) hold its samples to.

The store keeps what evalui's scorers wrote, but a store edited by hand or by SQL can hold any JSON
where a verdict is, and the summaries, scanners and exports that read verdicts expect an object
whose ``error_type`` is text. Such a sample, and one whose stored data its benchmark refuses (an id
the benchmark does not have), is reported with the run and the sample instead of failing somewhere
deep in the code that met it.
"""

from __future__ import annotations

import contextlib

from evalui.errors import DamagedRun, InputError


def check_verdicts(exp_id: str, samples) -> None:
    """Refuse the run when a sample's verdict is not an object, or its error_type is not text."""
    for sample in samples:
        verdict = sample.verdict
        if verdict is not None and not isinstance(verdict, dict):
            raise DamagedRun(exp_id, sample.sample_id, f"its verdict is a JSON {_kind(verdict)}, not an object")
        error_type = (verdict or {}).get("error_type")
        if error_type is not None and not isinstance(error_type, str):
            raise DamagedRun(exp_id, sample.sample_id, f"its verdict's error_type is a JSON {_kind(error_type)}, "
                             "not text")


@contextlib.contextmanager
def about_sample(exp_id: str, sample_id: str):
    """A refusal raised while using one stored sample names the run and the sample."""
    try:
        yield
    except DamagedRun:
        raise
    except InputError as exc:
        raise DamagedRun(exp_id, sample_id, str(exc)) from None


def _kind(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array", str: "string"}.get(type(value), type(value).__name__)
