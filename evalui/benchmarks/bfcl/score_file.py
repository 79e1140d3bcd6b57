"""Score an official-format BFCL result file (JSON lines ``{"id", "result"}``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from evalui.benchmarks.bfcl.data import category_of_id, check_category, entries_by_id
from evalui.benchmarks.bfcl.scoring.single_turn import AGENTIC_CATEGORIES, MULTI_TURN_CATEGORIES, result_shape
from evalui.errors import InputError
from evalui.jsonl import iter_jsonl
from evalui.stats.metrics import accuracy


def read_result_file(path: str | Path, category: str) -> list[tuple[int, str, object]]:
    """(line, id, result) for every line, after checking each id belongs to ``category``."""
    check_category(category)
    known = entries_by_id(category)
    seen: dict[str, int] = {}
    rows = []
    for line, record in iter_jsonl(path):
        entry_id = record.get("id")
        if not isinstance(entry_id, str):
            raise InputError('missing string field "id"', path=str(path), line=line)
        if "result" not in record:
            raise InputError(f'missing field "result" for id {entry_id!r}', path=str(path), line=line)
        if entry_id not in known:
            other = category_of_id(entry_id)
            if other and other != category:
                raise InputError(
                    f"id {entry_id!r} belongs to category {other!r}, not {category!r}; "
                    f"is this the result file of another category?",
                    path=str(path),
                    line=line,
                )
            raise InputError(f"id {entry_id!r} is not in the {category} dataset", path=str(path), line=line)
        if entry_id in seen:
            raise InputError(f"id {entry_id!r} repeats line {seen[entry_id]}", path=str(path), line=line)
        try:
            result_shape(record["result"])
        except ValueError as exc:
            raise InputError(str(exc), path=str(path), line=line) from None
        seen[entry_id] = line
        rows.append((line, entry_id, record["result"]))
    return rows


def score_result_file(
    path: str | Path, category: str, *, fc_names_underscored: bool = True, budget_s: float | None = None
) -> tuple[list[dict], dict]:
    """Per-id verdict rows and a summary ``{"category", "total", "correct", "accuracy", …}``.

    FC-mode results are read the way ``bfcl generate`` writes them for OpenAI-style FC models
    (and the way evalui exports them): dotted function names appear with underscores.

    Memory is bounded by the file's size cap and by the ids (each at most once, all from the
    category); ``budget_s`` bounds the time, for files that strangers upload.
    """
    deadline = time.monotonic() + budget_s if budget_s else None
    rows = read_result_file(path, category)
    known = entries_by_id(category)
    verdicts = []
    for verdict in _verdict_rows(rows, known, category, fc_names_underscored):
        if deadline and time.monotonic() > deadline:
            raise InputError(f"scoring stopped after its {budget_s:g} s budget ({len(verdicts)} of {len(rows)} lines "
                             f"scored)", path=str(path))
        verdicts.append(verdict)
    overall = accuracy(v["correct"] for v in verdicts)
    summary = {
        "category": category,
        "total": overall.total,
        "correct": overall.successes,
        "accuracy": overall.rate,
        "ci95": [overall.low, overall.high],
        "missing": len(known) - overall.total,
    }
    return verdicts, summary


def _verdict_rows(rows, known, category, fc_names_underscored) -> Iterator[dict]:
    if category in AGENTIC_CATEGORIES:
        from evalui.benchmarks.bfcl.scoring.agentic import score_agentic

        # Nothing runs: each step is only decoded (JSON or ast), on a line the file's size cap bounds.
        for _line, entry_id, result in rows:
            entry = known[entry_id]
            yield {"id": entry_id, **score_agentic(entry_id, category, result, entry.possible_answer).as_dict()}
        return
    if category in MULTI_TURN_CATEGORIES:
        from evalui.benchmarks.bfcl.isolated import score_isolated
        from evalui.benchmarks.bfcl.multi_turn.data import checker_entry

        # Each line's calls run in a worker process under a per-line deadline (EVALUI_LINE_SECONDS),
        # so an upload cannot hold the server; the mode follows each line's shape.
        for _line, entry_id, result in rows:
            entry = known[entry_id]
            yield {"id": entry_id, **score_isolated(checker_entry(entry), entry.possible_answer, result)}
        return
    from evalui.benchmarks.bfcl.isolated import score_single_isolated

    for _line, entry_id, result in rows:
        entry = known[entry_id]
        underscore_to_dot = fc_names_underscored and result_shape(result) == "fc"
        verdict = score_single_isolated(category, entry.functions, entry.possible_answer, result,
                                        underscore_to_dot=underscore_to_dot)
        yield {"id": entry_id, **verdict}
