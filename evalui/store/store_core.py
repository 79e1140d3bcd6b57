"""What the run store's mixins (evalui.store.claims, evalui.store.light) use of ``RunStore``."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from evalui.store.group_commit import Done, GroupCommit
from evalui.store.parts import PartCache
from evalui.store.protocols import Connection, Row
from evalui.store.rows import Sample


class StoreCore(Protocol):
    """What RunStore gives the mixins it is made of (evalui.store.answers, claims, light and view)."""

    @property
    def dialect(self) -> str: ...

    @property
    def _db(self) -> Connection: ...

    @property
    def _lock(self) -> threading.RLock: ...

    @property
    def _writer(self) -> GroupCommit: ...

    @property
    def _joined(self) -> dict[str, str]: ...

    @property
    def _parts(self) -> PartCache: ...

    def flush(self) -> None: ...

    def reader(self) -> AbstractContextManager[Connection]: ...

    def _read(self, sql: str, params: Iterable[Any] = ()) -> Sequence[Row]: ...

    def _write(self, sql: str, params: Iterable[Any] = (), *, wait: bool = True,
               on_done: Done | None = None) -> None: ...

    def _sample(self, row: Row) -> Sample: ...
