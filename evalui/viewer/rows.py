"""The viewer's sample list: one light row per sample, filtered, sorted and paged, and the list as
inert HTML (every value escaped; rows carry their id in a data attribute for the page's script).
No gradio."""

from __future__ import annotations

import html
import math
from collections.abc import Callable

from evalui.reports.verdicts import VERDICTS, verdict_of
from evalui.viewer.inspector_data import ALL, ANY_INVALID, error_type_of, filter_choices  # noqa: F401  (re-exported)
from evalui.viewer.texts import word_or_key

PAGE_SIZE = 50
# column key -> (header, how a row sorts by it); None sorts last whichever the direction.
COLUMNS = {"id": "id", "group": "group", "verdict": "verdict", "error_type": "error type",
           "latency_s": "latency", "tokens": "tokens"}
_VERDICT_ORDER = {v: n for n, v in enumerate(VERDICTS)}
# The columns whose text may wrap (after an underscore); ids and figures never break.
WRAPPING = ("group", "error_type")
# What the column chooser may hide: every column but the id, and the findings flag.
HIDEABLE = (*(key for key in COLUMNS if key != "id"), "findings")
Words = Callable[..., str]


def light_row(sample, findings: list[dict] | None = None, position: int = 0) -> dict:
    """What the list shows and filters by, without the sample's messages."""
    findings = findings or []
    return {"id": sample.sample_id, "group": sample.group or "", "verdict": verdict_of(sample),
            "error_type": error_type_of(sample), "latency_s": sample.latency_s,
            "tokens": int(sample.prompt_tokens or 0) + int(sample.completion_tokens or 0),
            "scanners": sorted({str(f.get("scanner")) for f in findings}),
            "invalid": any(f.get("severity") == "invalid" for f in findings), "position": position}


def _passes(row: dict, verdict, group, error_type, finding) -> bool:
    if verdict not in (ALL, "", None, row["verdict"]) or group not in (ALL, "", None, row["group"]):
        return False
    if error_type not in (ALL, "", None, row["error_type"]):
        return False
    if finding in (ALL, "", None):
        return True
    return row["invalid"] if finding == ANY_INVALID else finding in row["scanners"]


def filtered(rows: list[dict], *, verdict=ALL, group=ALL, error_type=ALL, finding=ALL,
             ids: set[str] | None = None) -> list[dict]:
    """The rows passing every filter; ``ids``: only these (a search's matches), None: no search."""
    if ids is None and all(value in (ALL, "", None) for value in (verdict, group, error_type, finding)):
        return list(rows)  # the viewer's first page, and most API calls: no row to test
    return [r for r in rows if _passes(r, verdict, group, error_type, finding) and (ids is None or r["id"] in ids)]


def sorted_rows(rows: list[dict], column: str = "position", descending: bool = False) -> list[dict]:
    """Rows by ``column`` (stored order for an unknown one); empty values last in both directions."""
    if column not in COLUMNS:
        return sorted(rows, key=lambda r: r["position"], reverse=descending)

    def key(row):
        value = row[column]
        return _VERDICT_ORDER.get(value, len(VERDICTS)) if column == "verdict" else value

    # Python's sort is stable in both directions: samples that tie stay in stored order.
    in_order = sorted(rows, key=lambda r: r["position"])
    known = [r for r in in_order if r[column] not in (None, "")]
    empty = [r for r in in_order if r[column] in (None, "")]
    return sorted(known, key=key, reverse=descending) + empty


def page_count(total: int, size: int = PAGE_SIZE) -> int:
    return max(1, math.ceil(total / size))


def page_of(rows: list[dict], page: int, size: int = PAGE_SIZE) -> tuple[list[dict], int]:
    """The rows of page ``page`` (0-based, clamped) and that page's number."""
    page = max(0, min(int(page or 0), page_count(len(rows), size) - 1))
    return rows[page * size:(page + 1) * size], page


def page_holding(ids: list[str], sample_id: str | None, size: int = PAGE_SIZE) -> int:
    return ids.index(sample_id) // size if sample_id in ids else 0


def step(ids: list[str], current: str | None, offset: int) -> str | None:
    """The id ``offset`` places from ``current`` in ``ids`` (clamped); the first when current is not there."""
    if not ids:
        return None
    at = ids.index(current) + offset if current in ids else 0
    return ids[max(0, min(at, len(ids) - 1))]


def position_text(ids: list[str], sample_id: str | None) -> str:
    if not ids:
        return "0 / 0"
    return f"{ids.index(sample_id) + 1} / {len(ids)}" if sample_id in ids else f"– / {len(ids)}"


def _cell(row: dict, column: str, words: Words) -> str:
    value = row[column]
    if column == "verdict":
        return html.escape(word_or_key(words, "viewer.verdict", value))
    if column == "latency_s":
        return "–" if value is None else f"{value:.2f} s"
    if value in (None, ""):
        return "–"
    # An error type or a group wraps after its underscores (word boundaries), never inside a word.
    return html.escape(str(value)).replace("_", "_<wbr>") if column in WRAPPING else html.escape(str(value))


def _pager(page: int, pages: int, total: int, words: Words) -> str:
    e = html.escape
    return (f'<div class="evalui-pager"><button data-page="{page - 1}"{" disabled" if page <= 0 else ""}'
            f' title="{e(words("viewer.previous_page"))}">◀</button>'
            f' <span class="evalui-page">{e(words("viewer.page", page=page + 1, pages=pages, total=total))}</span> '
            f'<button data-page="{page + 1}"{" disabled" if page + 1 >= pages else ""}'
            f' title="{e(words("viewer.next_page"))}">▶</button></div>')


def _chooser(words: Words) -> str:
    """Checkboxes that hide and show columns: the page's script applies them and remembers them."""
    boxes = "".join(f'<label><input type="checkbox" data-column="{key}" checked> {html.escape(words(f"viewer.col.{key}"))}'
                    f"</label>" for key in HIDEABLE)
    return (f'<details class="evalui-chooser"><summary>{html.escape(words("viewer.columns"))}</summary>'
            f"<div>{boxes}</div></details>")


def list_html(rows: list[dict], *, selected: str | None, column: str, descending: bool, page: int,
              total: int, words: Words, size: int = PAGE_SIZE, reveal: bool = False) -> str:
    """One page of the list as a table: the pager and the column chooser above it, sortable headers,
    coloured verdicts, the selected row marked. Rows and headers carry data attributes the page's
    script turns into events; ``reveal``: the page scrolls the selected row into view (a deep link).
    ``words(key, **fields)``: the catalog's texts (evalui.ui.i18n.viewer) in the visitor's language."""
    e = html.escape
    heads = []
    for key in COLUMNS:
        mark = (" ▼" if descending else " ▲") if key == column else ""
        heads.append(f'<th data-sort="{key}" aria-sort="{("descending" if descending else "ascending") if mark else "none"}"'
                     f' data-col="{key}" tabindex="0">{e(words(f"viewer.col.{key}"))}{mark}</th>')
    heads.append(f'<th data-col="findings">{e(words("viewer.col.findings"))}</th>')
    body = []
    for row in rows:
        chosen = ' class="evalui-selected" aria-selected="true"' if row["id"] == selected else ""
        flags = " ".join(row["scanners"])
        body.append(f'<tr data-id="{e(row["id"])}" data-verdict="{e(row["verdict"])}"{chosen}>'
                    + "".join(f'<td data-col="{key}">{_cell(row, key, words)}</td>' for key in COLUMNS)
                    + (f'<td data-col="findings" class="evalui-flags" title="{e(flags)}">⚑</td>' if flags
                       else '<td data-col="findings"></td>') + "</tr>")
    top = f'<div class="evalui-list-top">{_pager(page, page_count(total, size), total, words)}{_chooser(words)}</div>'
    empty = f'<p class="evalui-list-empty">{e(words("viewer.no_match"))}</p>' if not rows else ""
    shown = ' data-reveal="true"' if reveal else ""
    return (f'<div class="evalui-list" data-page="{page}" data-total="{total}"{shown}>'
            f'{top}<table><thead><tr>{"".join(heads)}</tr></thead><tbody>{"".join(body)}</tbody></table>{empty}</div>')
