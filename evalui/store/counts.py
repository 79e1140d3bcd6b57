"""Per-run counts kept in the experiments row, so a listing reads one row per run, not its samples.

``n_total``, ``n_judged``, ``n_correct``, ``n_errors`` and ``n_tokens`` are what ``progress()``
returns. Triggers on ``samples`` keep them: every insert, update and delete of a sample changes
them in the same transaction, by the difference between the row before and after. So every write
path (the group commit, claims, a rescore, a delete, several workers through PostgreSQL) keeps them
exact without reading them first in Python; the counts can never be seen out of step with the
samples. A database trigger rather than an extra statement beside each write because the change
depends on the row's old values (was it judged? correct?), which only the database sees atomically.
"""

from __future__ import annotations

from evalui.store.protocols import Connection

COUNT_COLUMNS = ("n_total", "n_judged", "n_correct", "n_errors", "n_tokens")
# The most tokens a sample's row records, prompt or completion. Each reply's counts are checked
# where it is read (evalui.endpoint.completion.MAX_REPLY_TOKENS); this bounds what a task sums from
# them, so that n_tokens, their sum over a run in a 64-bit column, stays under 2**62 for a million
# samples at the bound.
MAX_SAMPLE_TOKENS = 2**40

# Each count's contribution of one sample row (R is NEW or OLD), 0 or 1 (tokens: the sum).
_TERMS = {
    "n_total": "1",
    "n_judged": "CASE WHEN R.stage = 'judged' THEN 1 ELSE 0 END",
    "n_correct": "CASE WHEN R.stage = 'judged' AND R.correct = 1 THEN 1 ELSE 0 END",
    "n_errors": "CASE WHEN R.stage != 'judged' AND R.error IS NOT NULL THEN 1 ELSE 0 END",
    "n_tokens": "(R.prompt_tokens + R.completion_tokens)",
}
# The columns the terms read: an update that sets none of them leaves the counts alone.
_COUNTED = ("stage", "correct", "error", "prompt_tokens", "completion_tokens")
_CHANGED = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in _COUNTED)


def stored_tokens(count: int) -> int:
    """A sample's token count as its row may hold it: 0 to MAX_SAMPLE_TOKENS."""
    return min(max(int(count), 0), MAX_SAMPLE_TOKENS)


def _term(name: str, row: str) -> str:
    return _TERMS[name].replace("R.", f"{row}.")


def _set(sign_new: str | None, sign_old: str | None) -> str:
    parts = []
    for name in COUNT_COLUMNS:
        change = name
        if sign_new:
            change += f" {sign_new} {_term(name, 'NEW')}"
        if sign_old:
            change += f" {sign_old} {_term(name, 'OLD')}"
        parts.append(f"{name} = {change}")
    return ", ".join(parts)


def _sqlite_triggers() -> list[str]:
    return [
        "CREATE TRIGGER IF NOT EXISTS samples_counted_insert AFTER INSERT ON samples BEGIN"
        f" UPDATE experiments SET {_set('+', None)} WHERE exp_id = NEW.exp_id; END",
        f"CREATE TRIGGER IF NOT EXISTS samples_counted_update AFTER UPDATE OF {', '.join(_COUNTED)} ON samples"
        f" WHEN {_CHANGED} BEGIN"
        f" UPDATE experiments SET {_set('+', '-')} WHERE exp_id = NEW.exp_id; END",
        "CREATE TRIGGER IF NOT EXISTS samples_counted_delete AFTER DELETE ON samples BEGIN"
        f" UPDATE experiments SET {_set(None, '-')} WHERE exp_id = OLD.exp_id; END",
    ]


def _postgres_triggers() -> list[str]:
    changed = _CHANGED.replace(" IS NOT ", " IS DISTINCT FROM ")
    body = (
        "BEGIN"
        f" IF TG_OP = 'INSERT' THEN UPDATE experiments SET {_set('+', None)} WHERE exp_id = NEW.exp_id;"
        f" ELSIF TG_OP = 'UPDATE' THEN UPDATE experiments SET {_set('+', '-')} WHERE exp_id = NEW.exp_id;"
        f" ELSE UPDATE experiments SET {_set(None, '-')} WHERE exp_id = OLD.exp_id;"
        " END IF; RETURN NULL; END")
    return [
        f"CREATE OR REPLACE FUNCTION evalui_count_samples() RETURNS trigger LANGUAGE plpgsql AS $body$ {body} $body$",
        "CREATE TRIGGER samples_counted_insert AFTER INSERT ON samples"
        " FOR EACH ROW EXECUTE FUNCTION evalui_count_samples()",
        f"CREATE TRIGGER samples_counted_update AFTER UPDATE OF {', '.join(_COUNTED)} ON samples"
        f" FOR EACH ROW WHEN ({changed}) EXECUTE FUNCTION evalui_count_samples()",
        "CREATE TRIGGER samples_counted_delete AFTER DELETE ON samples"
        " FOR EACH ROW EXECUTE FUNCTION evalui_count_samples()",
    ]


def recount_sql() -> str:
    """Set every run's counts from its samples (the migration's backfill; also a repair)."""
    def total(name: str) -> str:
        return f"(SELECT COALESCE(SUM({_term(name, 'samples')}), 0) FROM samples WHERE samples.exp_id = experiments.exp_id)"
    return f"UPDATE experiments SET {', '.join(f'{name} = {total(name)}' for name in COUNT_COLUMNS)}"


def keep_counts(db: Connection, dialect: str) -> None:
    """Migration step: the count columns, filled from the samples, and the triggers that keep them."""
    for name in COUNT_COLUMNS:
        db.execute(f"ALTER TABLE experiments ADD COLUMN {name} INTEGER NOT NULL DEFAULT 0")
    db.execute(recount_sql())
    for statement in _postgres_triggers() if dialect == "postgresql" else _sqlite_triggers():
        db.execute(statement)


def wide_token_counts(db: Connection, dialect: str) -> None:
    """Migration step: token counts in 64-bit columns on PostgreSQL, whose INTEGER has 32 bits: a
    run's n_tokens passes 2**31 after a few thousand long agent samples. SQLite's INTEGER already
    has 64. PostgreSQL will not change the type of a column a trigger's condition reads, so the
    update trigger is dropped and made again around the change."""
    if dialect != "postgresql":
        return
    update_trigger = next(t for t in _postgres_triggers() if t.startswith("CREATE TRIGGER samples_counted_update"))
    db.execute("DROP TRIGGER samples_counted_update ON samples")
    db.execute("ALTER TABLE samples ALTER COLUMN prompt_tokens TYPE BIGINT, ALTER COLUMN completion_tokens TYPE BIGINT")
    db.execute("ALTER TABLE experiments ALTER COLUMN n_tokens TYPE BIGINT")
    db.execute(update_trigger)
