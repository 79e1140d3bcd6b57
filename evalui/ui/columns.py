"""Table headers in the visitor's language. Tables are built with English column names (the API
and the exports keep them); a table on its way to a page renamed for a Chinese browser."""

from __future__ import annotations

import pandas as pd

from evalui.ui.i18n.strings import STRINGS, say
from evalui.ui.request import language


def localized(frame: pd.DataFrame) -> pd.DataFrame:
    if language() == 0:
        return frame
    return frame.rename(columns={c: say(f"col.{c}") for c in frame.columns if f"col.{c}" in STRINGS})
