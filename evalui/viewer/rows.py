"""The viewer's sample list: one light row per sample, filtered, sorted and paged, and the list as
inert HTML (every value escaped; rows carry their id in a data attribute for the page's script).
No gradio."""

from __future__ import annotations

import html
import math

from evalui.reports.verdicts import VERDICTS, verdict_of
from evalui.viewer.inspector_data import ALL, ANY_INVALID, error_type_of, filter_choices  # noqa: F401  (re-exported)

PAGE_SIZE = 50
# column key -> (header, how a row sorts by it); None sorts last whichever the direction.
COLUMNS = {"id": "id", "group": "group", "verdict": "verdict", "error_type": "error type",
           "latency_s": "latency", "tokens": "tokens"}
_VERDICT_ORDER = {v: n for n, v in enumerate(VERDICTS)}


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


def _cell(row: dict, column: str) -> str:
    value = row[column]
    if column == "latency_s":
        return "–" if value is None else f"{value:.2f} s"
    return html.escape(str(value)) if value not in (None, "") else "–"


def list_html(rows: list[dict], *, selected: str | None, column: str, descending: bool, page: int,
              total: int, size: int = PAGE_SIZE) -> str:
    """One page of the list as a table: sortable headers, coloured verdicts, the selected row marked,
    and the pager. Rows and headers carry data attributes the page's script turns into events."""
    e = html.escape
    heads = []
    for key, title in COLUMNS.items():
        mark = (" ▼" if descending else " ▲") if key == column else ""
        heads.append(f'<th data-sort="{key}" aria-sort="{("descending" if descending else "ascending") if mark else "none"}"'
                     f' tabindex="0">{e(title)}{mark}</th>')
    body = []
    for row in rows:
        chosen = ' class="evalui-selected" aria-selected="true"' if row["id"] == selected else ""
        flags = " ".join(row["scanners"])
        body.append(f'<tr data-id="{e(row["id"])}" data-verdict="{e(row["verdict"])}"{chosen}>'
                    + "".join(f'<td data-col="{key}">{_cell(row, key)}</td>' for key in COLUMNS)
                    + (f'<td class="evalui-flags" title="{e(flags)}">⚑</td>' if flags else "<td></td>") + "</tr>")
    pages = page_count(total, size)
    pager = (f'<div class="evalui-pager"><button data-page="{page - 1}"{" disabled" if page <= 0 else ""}>◀</button>'
             f' <span class="evalui-page">page {page + 1} / {pages} · {total} samples</span> '
             f'<button data-page="{page + 1}"{" disabled" if page + 1 >= pages else ""}>▶</button></div>')
    empty = '<p class="evalui-list-empty">No sample matches.</p>' if not rows else ""
    return (f'<div class="evalui-list" data-page="{page}" data-total="{total}"><table><thead><tr>{"".join(heads)}'
            f'<th></th></tr></thead><tbody>{"".join(body)}</tbody></table>{empty}{pager}</div>')
