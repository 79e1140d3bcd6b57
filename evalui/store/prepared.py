"""An answer and a verdict made ready for the store away from its writer: the column texts, the
parts and the search documents, as ``record_rollout`` and ``record_judgement`` would make them.

A run against a fast endpoint judges in a child process (evalui.run.judge_pool); making these texts
cost its event loop as much as judging did, and they are pure, so the child makes them too and the
run hands them to the store as they are. The same functions make them here and in the store, so
the rows are byte for byte the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalui.store.light import verdict_columns
from evalui.store.parts import Packed, pack
from evalui.store.rows import _dumps
from evalui.store.search import call_part, verdict_part


@dataclass(frozen=True, slots=True)
class PreparedAnswer:
    """An answer's response and trajectory packed (their values stay where they were packed), and
    its search document."""

    response: Packed
    trajectory: Packed
    search_text: str


@dataclass(frozen=True, slots=True)
class PreparedVerdict:
    """A verdict's columns (prediction, correct, verdict, error_type, unscored, findings) and its
    search document."""

    values: tuple
    search_text: str

    @property
    def correct(self) -> bool:
        return bool(self.values[1])


def _packed(value: object) -> Packed:
    text, parts = pack(value)
    return Packed(None, text, parts)


def prepare_answer(response: object, trajectory: list | None, messages: list | None) -> PreparedAnswer:
    """``messages``: the request's, which the answer's search document holds too."""
    request = {"messages": messages} if messages is not None else None
    return PreparedAnswer(_packed(response), _packed(trajectory), call_part(request, response, trajectory, None))


def prepare_verdict(prediction: object, correct: bool, verdict: dict) -> PreparedVerdict:
    return PreparedVerdict((_dumps(prediction), int(bool(correct)), _dumps(verdict), *verdict_columns(verdict)),
                           verdict_part(prediction, verdict))
