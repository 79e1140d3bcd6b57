"""Two runs' takes on one sample as HTML: both answers and the gold answer in one table, the tool
calls aligned, then both transcripts in two columns.

Each column wraps within itself: the columns are a grid of two ``minmax(0, 1fr)`` tracks (a long
line cannot widen its track), tables are fixed-layout, text wraps at word boundaries and breaks a
word only when it alone is wider than its column, while ids and figures never break. The words come
from the caller (``words(key, **fields)``: the page's catalog in the visitor's language). No gradio;
every value escaped."""

from __future__ import annotations

import html
from collections.abc import Callable

from evalui.reports.verdicts import verdict_of
from evalui.viewer import messages
from evalui.viewer.inspector_data import error_type_of, gold_answer, prediction_text
from evalui.viewer.pair import aligned_calls

Words = Callable[..., str]
e = html.escape

PAIR_CSS = """
.evalui-pair { font-size: 13px; }
.evalui-pair-columns { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px;
  align-items: start; }
.evalui-pair-a, .evalui-pair-b { min-width: 0; overflow-wrap: break-word; word-break: normal; }
.evalui-pair table { width: 100%; max-width: 100%; table-layout: fixed; border-collapse: collapse; }
.evalui-pair th, .evalui-pair td { text-align: left; vertical-align: top; padding: 3px 6px;
  overflow-wrap: break-word; word-break: normal; border-bottom: 1px solid #eaeef2; }
.evalui-pair pre { white-space: pre-wrap; overflow-wrap: break-word; word-break: normal; max-width: 100%;
  box-sizing: border-box; }
.evalui-pair code { white-space: pre-wrap; overflow-wrap: break-word; word-break: normal; }
.evalui-pair .evalui-id, .evalui-pair .evalui-num { white-space: nowrap; }
.evalui-pair .evalui-id { display: inline-block; max-width: 100%; overflow: hidden; text-overflow: ellipsis;
  vertical-align: bottom; }
.evalui-pair col.evalui-col-label { width: 11em; }
.evalui-pair col.evalui-col-n { width: 3em; }
.evalui-pair col.evalui-col-mark { width: 7em; }
.evalui-pair img, .evalui-pair svg { max-width: 100%; }
"""


def _id(text: str) -> str:
    return f'<span class="evalui-id">{e(text)}</span>'


def _num(text: str) -> str:
    return f'<span class="evalui-num">{e(text)}</span>'


def aligned_calls_html(rows: list[dict], words: Words) -> str:
    if not rows:
        return f'<p class="evalui-calls-none">{e(words("pair.calls_none"))}</p>'

    def cell(text):
        return f'<td><code>{e(text) if text is not None else "–"}</code></td>'

    body = "".join(
        f'<tr class="evalui-call-{r["mark"]}" data-mark="{r["mark"]}"><td>{_num(str(n))}</td>{cell(r["a_text"])}'
        f'<td>{e(words("pair.mark." + r["mark"]))}</td>{cell(r["b_text"])}</tr>'
        for n, r in enumerate(rows, start=1))
    differing = sum(1 for r in rows if r["mark"] != "same")
    return (f'<p class="evalui-calls-summary">{e(words("pair.calls_summary", n=len(rows), differing=differing))}</p>'
            '<table class="evalui-aligned-calls"><colgroup><col class="evalui-col-n"><col><col class="evalui-col-mark">'
            f'<col></colgroup><thead><tr><th>#</th><th>{e(words("pair.run_column", side="A"))}</th><th></th>'
            f'<th>{e(words("pair.run_column", side="B"))}</th></tr></thead><tbody>{body}</tbody></table>')


def _figures(sample, words: Words) -> dict[str, str]:
    """The labelled figures of one run's sample, as cells (escaped HTML)."""
    if sample is None:
        missing = f'<span class="evalui-empty">{e(words("pair.missing"))}</span>'
        return dict.fromkeys(("verdict", "error_type", "answer", "latency", "tokens"), missing)
    verdict = verdict_of(sample)
    latency = "–" if sample.latency_s is None else words("pair.seconds", value=f"{sample.latency_s:.2f}")
    tokens = f"{int(sample.prompt_tokens or 0)} + {int(sample.completion_tokens or 0)}"
    return {"verdict": f'<span class="evalui-pill evalui-v-{e(verdict)}">{e(words("pair.v." + verdict))}</span>',
            "error_type": f"<code>{e(error_type_of(sample))}</code>" if error_type_of(sample) else "–",
            "latency": _num(latency), "tokens": _num(tokens)}


def answers_html(benchmark: str, sample_a, sample_b, words: Words) -> str:
    """Both runs' verdicts, answers (as the benchmark renders them: calls as calls, turn by turn)
    and figures, row by row, then the gold answer once."""
    first, second = _figures(sample_a, words), _figures(sample_b, words)
    for figures, sample in ((first, sample_a), (second, sample_b)):
        if sample is not None:
            answer = prediction_text(benchmark, sample.prediction) or words("pair.no_answer")
            figures["answer"] = f'<pre data-role="answer">{e(answer)}</pre>'
    rows = "".join(f'<tr data-field="{name}"><th>{e(words("pair." + name))}</th><td>{first[name]}</td>'
                   f'<td>{second[name]}</td></tr>'
                   for name in ("verdict", "error_type", "answer", "latency", "tokens"))
    known = sample_a if sample_a is not None else sample_b
    gold = (gold_answer(benchmark, known) if known is not None else "") or words("pair.no_gold")
    rows += (f'<tr data-field="gold"><th>{e(words("pair.gold"))}</th>'
             f'<td colspan="2"><pre data-role="gold">{e(gold)}</pre></td></tr>')
    return ('<table class="evalui-pair-answers"><colgroup><col class="evalui-col-label"><col><col></colgroup>'
            f'<thead><tr><th>{e(words("pair.field"))}</th><th class="evalui-pair-head-a">A</th>'
            f'<th class="evalui-pair-head-b">B</th></tr></thead><tbody>{rows}</tbody></table>')


def side_by_side_html(benchmark: str, a_id: str, b_id: str, sample_id: str, sample_a, sample_b, pane_a: str,
                      pane_b: str, words: Words) -> str:
    """The answers, the aligned tool calls, then both transcript panes (already rendered, escaped)."""
    calls = aligned_calls(messages.tool_calls(sample_a) if sample_a else [],
                          messages.tool_calls(sample_b) if sample_b else [])
    head_a, head_b = words("pair.run_a", run=a_id), words("pair.run_b", run=b_id)
    return (f'<div class="evalui-pair" data-sample="{e(sample_id)}" data-a="{e(a_id)}" data-b="{e(b_id)}">'
            f'<p class="evalui-pair-title">{_id(sample_id)} · {_id(head_a)} · {_id(head_b)}</p>'
            f'{answers_html(benchmark, sample_a, sample_b, words)}'
            f'<h4>{e(words("pair.calls_title"))}</h4>{aligned_calls_html(calls, words)}'
            f'<h4>{e(words("pair.transcripts"))}</h4><div class="evalui-pair-columns">'
            f'<div class="evalui-pair-a"><h4>{_id(head_a)}</h4>{pane_a}</div>'
            f'<div class="evalui-pair-b"><h4>{_id(head_b)}</h4>{pane_b}</div></div></div>')
