"""A stored sample as Python sees it, and the JSON its columns hold."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

STAGES = ("init", "rollout", "judged")


@dataclass
class Sample:
    exp_id: str
    sample_id: str
    position: int
    group: str
    stage: str
    payload: dict
    request: object = None
    response: object = None
    prediction: object = None
    latency_s: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: int = 0
    correct: bool | None = None
    verdict: dict | None = None
    error: str | None = None
    trajectory: list | None = None
    updated_at: float | None = None
    claimed_by: str | None = None  # the worker that holds (or last held) it: evalui.run.claims
    # Which repeat of the sample this row is (1 for a run without epochs). A column of its own; the
    # row's key still carries it (``x#e2``), so exports and links keep their ids.
    epoch: int = 1
    # What the validity scanners found, once evalui.run.findings scanned it (kept in a judged
    # sample's verdict in the store; not a column of its own).
    findings: list | None = None

    @property
    def own_id(self) -> str:
        """The sample's id as its benchmark knows it, whatever the epoch (``x`` for ``x#e2``)."""
        suffix = f"#e{self.epoch}"
        return self.sample_id[:-len(suffix)] if self.epoch > 1 and self.sample_id.endswith(suffix) else self.sample_id

    @property
    def steps(self) -> int:
        """How many model calls the sample took."""
        return len(self.trajectory or [])


def _dumps(value) -> str | None:
    if value is None:
        return None
    try:  # orjson (a gradio dependency) is several times faster, and a run writes a lot of JSON
        import orjson

        return orjson.dumps(value).decode()
    except (ImportError, TypeError, OverflowError):  # no orjson, or what only json takes (big ints)
        return json.dumps(value, ensure_ascii=False, default=_plain)


def _plain(value):
    # orjson writes dataclasses (a trajectory's steps) itself; json needs them as dicts.
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _loads(text):
    if text is None:
        return None
    try:
        import orjson

        return orjson.loads(text)
    except (ImportError, ValueError):  # json also reads NaN and Infinity
        return json.loads(text)
