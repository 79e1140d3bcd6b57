"""Two runs side by side: their samples bucketed fixed / broken / both wrong / both right, and one
flipped sample's two transcripts beside each other, their tool-call sequences aligned (difflib's
longest-matching-blocks alignment, rather than a hand-written one) with the differences marked.
No gradio; all text escaped."""

from __future__ import annotations

import difflib
import html

from evalui.viewer import messages

BUCKETS = ("fixed", "broken", "both_wrong", "both_right")
BUCKET_TITLES = {"fixed": "fixed (A wrong → B right)", "broken": "broken (A right → B wrong)",
                 "both_wrong": "both wrong", "both_right": "both right"}
_PASSES = {"correct": True, "wrong": False, "error": False}  # an endpoint error never passes

e = html.escape


def buckets(verdicts_a: dict[str, str], verdicts_b: dict[str, str]) -> dict[str, list[str]]:
    """Sample ids in both runs with an outcome in each (correct / wrong / error), by bucket, in A's order."""
    found: dict[str, list[str]] = {name: [] for name in BUCKETS}
    for sample_id, verdict in verdicts_a.items():
        a, b = _PASSES.get(verdict), _PASSES.get(verdicts_b.get(sample_id, ""))
        if a is None or b is None:
            continue
        name = ("both_right" if b else "broken") if a else ("fixed" if b else "both_wrong")
        found[name].append(sample_id)
    return found


def bucket_choices(found: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(f"{BUCKET_TITLES[name]}: {len(found[name])}", name) for name in BUCKETS]


def aligned_calls(calls_a: list[dict], calls_b: list[dict]) -> list[dict]:
    """Rows {a, b, mark}: mark is same, changed (both called, differently), only_a or only_b."""
    signatures_a = [messages.call_signature(c) for c in calls_a]
    signatures_b = [messages.call_signature(c) for c in calls_b]
    rows = []
    matcher = difflib.SequenceMatcher(a=signatures_a, b=signatures_b, autojunk=False)
    for tag, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        left, right = signatures_a[a_start:a_end], signatures_b[b_start:b_end]
        if tag == "equal":
            rows += [{"a": x, "b": y, "mark": "same"} for x, y in zip(left, right)]
            continue
        for k in range(max(len(left), len(right))):
            x = left[k] if k < len(left) else None
            y = right[k] if k < len(right) else None
            rows.append({"a": x, "b": y, "mark": "changed" if x is not None and y is not None
                         else "only_a" if x is not None else "only_b"})
    return rows


MARK_WORDS = {"same": "=", "changed": "≠", "only_a": "only in A", "only_b": "only in B"}


def aligned_calls_html(rows: list[dict]) -> str:
    if not rows:
        return '<p class="evalui-calls-none">Neither run called a tool.</p>'
    body = "".join(
        f'<tr class="evalui-call-{r["mark"]}" data-mark="{r["mark"]}"><td>{n}</td>'
        f'<td><code>{e(r["a"]) if r["a"] is not None else "–"}</code></td><td>{e(MARK_WORDS[r["mark"]])}</td>'
        f'<td><code>{e(r["b"]) if r["b"] is not None else "–"}</code></td></tr>'
        for n, r in enumerate(rows, start=1))
    differing = sum(1 for r in rows if r["mark"] != "same")
    return (f'<p class="evalui-calls-summary">{len(rows)} aligned call(s), {differing} differing.</p>'
            '<table class="evalui-aligned-calls"><thead><tr><th>#</th><th>run A</th><th></th><th>run B</th></tr>'
            f'</thead><tbody>{body}</tbody></table>')


def side_by_side_html(a_id: str, b_id: str, sample_id: str, sample_a, sample_b, pane_a: str, pane_b: str) -> str:
    """The aligned tool calls, then both transcript panes (already rendered, escaped) in two columns."""
    calls = aligned_calls(messages.tool_calls(sample_a) if sample_a else [],
                          messages.tool_calls(sample_b) if sample_b else [])
    return (f'<div class="evalui-pair" data-sample="{e(sample_id)}" data-a="{e(a_id)}" data-b="{e(b_id)}">'
            f'<h4>Tool calls, aligned</h4>{aligned_calls_html(calls)}'
            '<div class="evalui-pair-columns" style="display:flex;gap:12px;align-items:flex-start">'
            f'<div class="evalui-pair-a" style="flex:1;min-width:0"><h4>A: {e(a_id)}</h4>{pane_a}</div>'
            f'<div class="evalui-pair-b" style="flex:1;min-width:0"><h4>B: {e(b_id)}</h4>{pane_b}</div></div></div>')
