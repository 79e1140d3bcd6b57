"""The run store's writes of a sample's answer and verdict (mixed into RunStore).

An answer is kept at stage ``rollout`` (``record_rollout``), then judged (``record_judgement``); when
the verdict comes while the answer's write is still queued, both become one row update. A run that
judges its answers as they come back (evalui.run.answer_batch) writes each answer with its verdict
at once (``record_judged_answers``), many samples in one hand-over to the writer: the same row
update, parts and search documents, each sample still a write of its own.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from evalui.store.bulk import BulkSQL
from evalui.store.claims import process_owner
from evalui.store.counts import stored_tokens
from evalui.store.group_commit import Done, Statement
from evalui.store.parts import Packed, pack, part_statements, unpacked
from evalui.store.prepared import PreparedVerdict, prepare_verdict
from evalui.store.search import CALL, VERDICT, call_part, index_statement
from evalui.store.store_core import StoreCore

_ROLLOUT = ("UPDATE samples SET stage = 'rollout', request = ?, response = ?, latency_s = ?, prompt_tokens = ?,"
            " completion_tokens = ?, attempts = attempts + ?, error = NULL, trajectory = ?, updated_at = ?,"
            " findings = NULL, error_findings = NULL WHERE exp_id = ? AND sample_id = ?")
_ANSWER_AND_VERDICT = BulkSQL(
    "UPDATE samples SET stage = 'judged', request = ?, response = ?, latency_s = ?, prompt_tokens = ?,"
    " completion_tokens = ?, attempts = attempts + ?, error = NULL, trajectory = ?, updated_at = ?, error_findings = NULL,"
    " prediction = ?, correct = ?, verdict = ?, error_type = ?, unscored = ?, findings = ? WHERE exp_id = ? AND sample_id = ?")
_VERDICT = ("UPDATE samples SET stage = 'judged', prediction = ?, correct = ?, verdict = ?, error_type = ?,"
            " unscored = ?, findings = ?, updated_at = ? WHERE exp_id = ? AND sample_id = ?")


@dataclass(frozen=True, slots=True)
class JudgedAnswer:
    """One sample's answer with its verdict, for ``record_judged_answers``. ``request``: packed ahead
    (evalui.store.parts.Packed) or as it is; ``on_done`` runs once this sample's write is committed."""

    sample_id: str
    request: object
    response: object
    latency_s: float
    prompt_tokens: int
    completion_tokens: int
    attempts: int
    trajectory: list | None
    verdict: PreparedVerdict
    on_done: Done | None = None


class _Answers(StoreCore, Protocol):
    """What these writes use of RunStore: its core, and these methods themselves."""

    def _pack(self, *values: object) -> tuple[list[str | None], list[Statement]]: ...

    def _answer_statements(self, exp_id: str, sample_id: str, request, response, latency_s: float,
                           prompt_tokens: int, completion_tokens: int, attempts: int, trajectory,
                           search_text: str | None) -> list[Statement]: ...

    def _verdict_checks(self, exp_id: str, now: float) -> list[Statement]: ...

    def record_prepared_judgement(self, exp_id: str, sample_id: str, prepared: PreparedVerdict, *, wait: bool = True,
                                  on_done: Done | None = None, after: int | None = None) -> None: ...


def _with_verdict(answer: list[Statement], verdict: PreparedVerdict, indexed: Statement,
                  checks: list[Statement]) -> list[Statement]:
    """An answer's statements (its rollout update, parts and index) with its verdict folded in."""
    rollout, *parts = answer
    params = rollout[1]
    return [(_ANSWER_AND_VERDICT, (*params[:8], *verdict.values, *params[8:])), *parts, indexed, *checks]


class AnswerWritesMixin:
    """The run store's part that keeps answers and verdicts (mixed into RunStore, which provides
    _writer, _parts, _joined, dialect…: its methods take ``self`` as StoreCore)."""

    def record_rollout(self: _Answers, exp_id: str, sample_id: str, *, request, response, latency_s: float,
                       prompt_tokens: int, completion_tokens: int, attempts: int, trajectory: list | Packed | None = None,
                       wait: bool = True, on_done: Done | None = None, search_text: str | None = None) -> int:
        """Keep the answer (stage rollout). Returns the write's ticket, for ``record_judgement(after=)``.
        ``request``, ``response`` and ``trajectory`` may be packed ahead (evalui.store.parts.Packed);
        ``search_text``: the answer's search document, when it was made with them
        (evalui.store.prepared)."""
        return self._writer.submit(
            self._answer_statements(exp_id, sample_id, request, response, latency_s, prompt_tokens, completion_tokens,
                                    attempts, trajectory, search_text), wait=wait, on_done=on_done)

    def _answer_statements(self: _Answers, exp_id: str, sample_id: str, request, response, latency_s: float,
                           prompt_tokens: int, completion_tokens: int, attempts: int, trajectory,
                           search_text: str | None) -> list[Statement]:
        (request_text, response_text, trajectory_text), parts = self._pack(request, response, trajectory)
        if search_text is None:
            search_text = call_part(unpacked(request), response, trajectory, None)
        return [(_ROLLOUT, (request_text, response_text, latency_s, stored_tokens(prompt_tokens),
                            stored_tokens(completion_tokens), attempts, trajectory_text, time.time(), exp_id, sample_id)),
                *parts, index_statement(self.dialect, exp_id, sample_id, CALL, search_text)]

    def record_error(self: _Answers, exp_id: str, sample_id: str, *, request, error: str, attempts: int,
                     trajectory: list | None = None, wait: bool = True, on_done: Done | None = None) -> None:
        """The call failed for good: back to init (a resume starts it again), with what it did kept."""
        (request_text, trajectory_text), parts = self._pack(request, trajectory)
        self._writer.submit([(
            "UPDATE samples SET stage = 'init', request = ?, error = ?, attempts = attempts + ?, trajectory = ?,"
            " updated_at = ?, findings = NULL, error_findings = NULL WHERE exp_id = ? AND sample_id = ?",
            (request_text, error, attempts, trajectory_text, time.time(), exp_id, sample_id)), *parts,
            index_statement(self.dialect, exp_id, sample_id, CALL, call_part(unpacked(request), None, trajectory, error))],
            wait=wait, on_done=on_done)

    def _pack(self: StoreCore, *values: object) -> tuple[list[str | None], list[Statement]]:
        """Column texts of ``values`` with their large parts stored apart (evalui.store.parts),
        and the statements that store those parts; a value packed ahead is taken as it was packed."""
        texts: list[str | None] = []
        parts: dict[str, str] = {}
        for value in values:
            text, found = (value.text, value.parts) if isinstance(value, Packed) else pack(value)
            texts.append(text)
            parts.update(found)
        self._parts.remember(parts)
        return texts, part_statements(parts)

    def record_judgement(self: _Answers, exp_id: str, sample_id: str, *, prediction, correct: bool, verdict: dict,
                         wait: bool = True, on_done: Done | None = None, after: int | None = None) -> None:
        """Judge one sample. The last verdict marks the run finished in the same transaction, so a
        crash between it and the summary cannot leave a complete run looking unfinished.

        ``after``: the ticket of this sample's ``record_rollout(wait=False)``; while that write is
        still queued, the verdict is folded into it (one row update instead of two)."""
        self.record_prepared_judgement(exp_id, sample_id, prepare_verdict(prediction, correct, verdict), wait=wait,
                                       on_done=on_done, after=after)

    def _verdict_checks(self: _Answers, exp_id: str, now: float) -> list[Statement]:
        """The statements a verdict's write ends with: the run marked finished when it was the last."""
        # IN, not !=: two seeks on the (exp_id, stage) index instead of a scan of the judged rows.
        # Keyed: once per group of writes, after the others.
        # finished_by: the worker whose verdict was the last one writes the summary and exports.
        finish = ("UPDATE experiments SET status = 'finished', finished_by = ?, updated_at = ? WHERE exp_id = ?"
                  " AND status != 'finished' AND NOT EXISTS"
                  " (SELECT 1 FROM samples WHERE exp_id = ? AND stage IN ('init', 'rollout'))",
                  (self._joined.get(exp_id) or process_owner(), now, exp_id, exp_id), ("finished", exp_id))
        # PostgreSQL: two workers judging the last two samples at once would each see the other's
        # as unfinished. Locking the run's row first orders them: the second one's check runs after
        # the first commits, and sees every verdict. (SQLite writers are serialised already.)
        if self.dialect == "postgresql":
            return [("UPDATE experiments SET updated_at = ? WHERE exp_id = ?", (now, exp_id), ("lock", exp_id)), finish]
        return [finish]

    def record_prepared_judgement(self: _Answers, exp_id: str, sample_id: str, prepared: PreparedVerdict, *,
                                  wait: bool = True, on_done: Done | None = None, after: int | None = None) -> None:
        """``record_judgement`` of a verdict made ready for the store elsewhere (evalui.store.prepared)."""
        now = time.time()
        indexed = index_statement(self.dialect, exp_id, sample_id, VERDICT, prepared.search_text)
        checks = self._verdict_checks(exp_id, now)
        if after and not wait and self._writer.amend(
                after, lambda answer: _with_verdict(answer, prepared, indexed, checks), on_done):
            return
        self._writer.submit([(_VERDICT, (*prepared.values, now, exp_id, sample_id)), indexed, *checks],
                            wait=wait, on_done=on_done)

    def record_judged_answers(self: _Answers, exp_id: str, answers: Sequence[JudgedAnswer]) -> None:
        """Keep answers with their verdicts, each one write (answer and verdict in one row update, as
        ``record_judgement(after=)`` folds them), all handed to the writer at once. Not waited for:
        each answer's ``on_done`` runs once its write is committed."""
        checks = self._verdict_checks(exp_id, time.time())
        writes = []
        for answer in answers:
            statements = self._answer_statements(exp_id, answer.sample_id, answer.request, answer.response,
                                                 answer.latency_s, answer.prompt_tokens, answer.completion_tokens,
                                                 answer.attempts, answer.trajectory, None)
            indexed = index_statement(self.dialect, exp_id, answer.sample_id, VERDICT, answer.verdict.search_text)
            writes.append((_with_verdict(statements, answer.verdict, indexed, checks), answer.on_done))
        self._writer.submit_many(writes)
