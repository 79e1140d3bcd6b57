"""Tables in the visitor's language. Tables are built with English column names and cell words (the
API and the exports keep them); a table on its way to a page is renamed for a Chinese browser, and
the columns that hold words of the catalog (a run's status, a headline's name) have them translated."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from evalui.ui.i18n.strings import STRINGS, say
from evalui.ui.request import language


def localized(frame: pd.DataFrame, cells: dict[str, Callable[[str], str]] | None = None) -> pd.DataFrame:
    """``frame`` for the visitor: in Chinese, its headers from the catalog and each column of
    ``cells`` passed through its word's translation (a value it does not know stays as it is)."""
    if language() == 0:
        return frame
    frame = frame.copy()
    for column, word in (cells or {}).items():
        if column in frame.columns:
            frame[column] = [value if not isinstance(value, str) or not value else word(value)
                             for value in frame[column]]
    return frame.rename(columns={c: say(f"col.{c}") for c in frame.columns if f"col.{c}" in STRINGS})
