"""Content-addressed storage of the large parts that samples repeat.

A BFCL sample's request and its trajectory both hold the same system prompt and function docs, and
every run of a benchmark holds the same ones again. The store keeps each such part once, in the
table ``parts`` keyed by the sha256 of its JSON, and the sample's column keeps a reference instead:

- a column with references is ``@`` followed by its JSON, in which each part stands as the string
  ``"\\u0000part:<sha256>"`` (JSON never starts with ``@``: a column without references is plain
  JSON, as every older row is);
- reading puts each part's JSON back in place of its reference: the text is then exactly the JSON
  the value had before (orjson writes a container as its items' own JSON; the tests join every
  kind of value back), so a read returns exactly what was written.

What becomes a part (when its JSON is at least PART_MIN_CHARS long): an item of a ``messages``
list, the value of ``tools`` / ``functions`` / ``function``, and any string of LONG_STRING_CHARS or
more. Values whose JSON already holds the reference marker (hostile text can) are kept plain.

Parts are never rewritten (their key is their content), so a process may cache them for good.
Deleting a run leaves its parts: they are shared with other runs of the benchmark, so they grow with
the distinct prompts and docs stored, not with the runs. Nothing prunes them yet: a prune would have
to exclude parts a writer is about to reference, which needs a timestamp this table does not keep.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from evalui.store.bulk import BulkSQL
from evalui.store.group_commit import Statement
from evalui.store.protocols import Connection, Row
from evalui.store.rows import _dumps, _loads

PREFIX = "@"
MARKER = "\x00part:"
_MARKER_JSON = "\\u0000part:"  # the marker as JSON writes it
REFERENCE = re.compile(r'"\\u0000part:([0-9a-f]{64})"')
PART_MIN_CHARS = 256
LONG_STRING_CHARS = 512
PART_KEYS = frozenset({"tools", "functions", "function"})
CACHE_CHARS = 64_000_000  # the parts a process keeps in memory; cleared when over (they are re-read)

PARTS_TABLE = "CREATE TABLE IF NOT EXISTS parts (sha256 TEXT PRIMARY KEY, body TEXT NOT NULL)"
INSERT_PART = BulkSQL("INSERT INTO parts (sha256, body) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING")


def _orjson():
    try:
        import orjson

        return orjson
    except ImportError:  # a gradio dependency, so normally there; without it nothing is split
        return None


def pack(value) -> tuple[str | None, dict[str, str]]:
    """The column text of ``value`` and the parts it references ({sha256: JSON})."""
    orjson = _orjson()
    if value is None or orjson is None:
        return _dumps(value), {}
    try:
        raw = orjson.dumps(value)
    except (TypeError, ValueError):  # what orjson does not write (a huge int): json does, kept plain
        return _dumps(value), {}
    # _dumps writes with orjson too, so this is the text it gives.
    text = raw.decode()
    if len(text) < PART_MIN_CHARS or _MARKER_JSON in text:
        return text, {}
    parts: dict[str, str] = {}
    packed = PREFIX + orjson.dumps(_split(value, parts, orjson, raw=raw)).decode()
    # No join is checked here: orjson writes a container as its items' own JSON, so putting each
    # part's JSON back where its reference stands gives ``text`` byte for byte (the tests join them).
    return (packed, parts) if parts else (text, {})


@dataclass(frozen=True, slots=True)
class Packed:
    """A value packed ahead of its write (``pack_ahead``): the value, its column text and its parts.

    A request that is fixed before its sample runs is packed while the run loads, not on the run's
    event loop after the answer (evalui.run.sample_run); the value must not change after packing."""

    value: object
    text: str | None
    parts: dict[str, str]


def pack_ahead(value) -> Packed:
    text, parts = pack(value)
    return Packed(value, text, parts)


def unpacked(value):
    """The value itself, whether packed ahead or not."""
    return value.value if isinstance(value, Packed) else value


def _split(value, parts: dict[str, str], orjson, key: str | None = None, in_messages: bool = False,
           raw: bytes | None = None):
    """``value`` with its parts replaced by references. It descends only into containers whose JSON
    is long enough to hold a part (a smaller one cannot): a sample's small pieces are not walked.
    ``raw``: the value's JSON, when the caller has written it already."""
    if isinstance(value, str):
        return _part(value, parts, orjson) if len(value) >= LONG_STRING_CHARS else value
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = raw if raw is not None else orjson.dumps(value)
    if len(text) < PART_MIN_CHARS:
        return value
    if not isinstance(value, (dict, list)):  # a dataclass (a trajectory's step): walked as its JSON
        value = orjson.loads(text)
        if not isinstance(value, (dict, list)):
            return value
    if in_messages or key in PART_KEYS:
        return _part(value, parts, orjson, text.decode())
    if isinstance(value, dict):
        return {k: _split(v, parts, orjson, k) for k, v in value.items()}
    return [_split(v, parts, orjson, None, key == "messages") for v in value]


def _part(value, parts: dict[str, str], orjson, text: str | None = None) -> str:
    text = text if text is not None else orjson.dumps(value).decode()
    digest = hashlib.sha256(text.encode()).hexdigest()
    parts[digest] = text
    return MARKER + digest


def _joined(packed: str, body_of) -> str:
    return REFERENCE.sub(lambda match: body_of(match.group(1)), packed[len(PREFIX):])


def references(text) -> list[str]:
    if not isinstance(text, str) or not text.startswith(PREFIX):
        return []
    return REFERENCE.findall(text)


def part_statements(parts: dict[str, str]) -> list[Statement]:
    """Keyed statements (evalui.store.group_commit) that store the parts, once per group."""
    return [(INSERT_PART, (digest, body), ("part", digest)) for digest, body in parts.items()]


class LostPart(LookupError):
    """A sample refers to a part the store does not have (a damaged or tampered store)."""


class PartCache:
    """The parts this process has read or written, by sha256; reads what it lacks from the store."""

    def __init__(self, read: Callable[[str, Iterable[Any]], Sequence[Row]]):
        self._read = read  # RunStore._read
        self._bodies: dict[str, str] = {}
        self._chars = 0

    def remember(self, parts: dict[str, str]) -> None:
        for digest, body in parts.items():
            self._keep(digest, body)

    def _keep(self, digest: str, body: str) -> None:
        if digest in self._bodies:
            return
        if self._chars + len(body) > CACHE_CHARS:
            # Cleared, not evicted one by one: simple, and a part is one indexed read away.
            self._bodies, self._chars = {}, 0
        self._bodies[digest] = body
        self._chars += len(body)

    def fetch(self, digests: Iterable[str]) -> None:
        """Read, in a few queries, the parts among ``digests`` not in memory."""
        missing = list(dict.fromkeys(d for d in digests if d not in self._bodies))
        for start in range(0, len(missing), 500):
            chunk = missing[start:start + 500]
            for row in self._read(f"SELECT sha256, body FROM parts WHERE sha256 IN ({','.join('?' * len(chunk))})",
                                  chunk):
                self._keep(row["sha256"], row["body"])

    def body(self, digest: str) -> str:
        found = self._bodies.get(digest)
        if found is None:
            self.fetch([digest])
            found = self._bodies.get(digest)
            if found is None:
                raise LostPart(f"the part {digest} it refers to is missing from the store")
        return found

    def load(self, text):
        """A column's value: plain JSON as it is, references replaced by their parts."""
        if isinstance(text, str) and text.startswith(PREFIX):
            return _loads(_joined(text, self.body))
        return _loads(text)


def rows_references(rows: Iterable[Row], columns: Sequence[str]) -> list[str]:
    return [digest for row in rows for column in columns for digest in references(row[column])]


PACKED_COLUMNS = ("payload", "request", "response", "trajectory")


def pack_stored_samples(db: Connection, dialect: str) -> None:
    """Migration step: the parts table, and every stored sample's large parts moved into it, run by
    run (a read gives back exactly what it gave before)."""
    db.execute(PARTS_TABLE)
    runs = [row[0] for row in db.execute("SELECT DISTINCT exp_id FROM samples").fetchall()]
    for exp_id in runs:
        rows = db.execute(f"SELECT sample_id, {', '.join(PACKED_COLUMNS)} FROM samples WHERE exp_id = ?",
                          (exp_id,)).fetchall()
        parts: dict[str, str] = {}
        updates = []
        for row in rows:
            texts = []
            for column in PACKED_COLUMNS:
                text = row[column]
                if isinstance(text, str) and not text.startswith(PREFIX):
                    packed, found = pack(_loads(text))
                    if found:  # else the text stays as it was written
                        text = packed
                        parts.update(found)
                texts.append(text)
            if texts != [row[column] for column in PACKED_COLUMNS]:
                updates.append((*texts, exp_id, row["sample_id"]))
        if parts:
            db.executemany(INSERT_PART, sorted(parts.items()))
        if updates:
            db.executemany(f"UPDATE samples SET {', '.join(f'{c} = ?' for c in PACKED_COLUMNS)}"
                           " WHERE exp_id = ? AND sample_id = ?", updates)
