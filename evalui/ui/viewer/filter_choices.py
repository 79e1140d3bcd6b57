"""The viewer's filters' choices as the visitor reads them: (label, value) pairs whose values stay the
stored words ("all", a verdict), so that the filters and the API keep working on values."""

from __future__ import annotations

from evalui.ui.i18n.strings import say, t
from evalui.viewer import rows
from evalui.viewer.texts import word_or_key


def labelled(key: str, values: list[str]) -> list[tuple[str, str]]:
    """A filter's choices as (what the visitor reads, the value): "all", "any invalid" and the verdicts
    in the visitor's language; a group, an error type or a scanner as stored."""
    def label(value: str) -> str:
        if value == rows.ALL:
            return say("viewer.filter.all")
        if value == rows.ANY_INVALID:
            return say("viewer.filter.any_invalid")
        return word_or_key(say, "viewer.verdict", value) if key == "verdict" else value
    return [(label(value), value) for value in values]


def every() -> list:
    # Before a run opens, a filter offers only "all", in the page's language (Gradio translates t()).
    return [(t("viewer.filter.all"), rows.ALL)]
