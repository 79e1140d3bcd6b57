"""One sample as the viewer's transcript pane: a head line, the score with its explanation (scorer,
error type, the scorer's metadata such as the AIME judge's dimension scores), the final and gold
answers, the validity findings, then the conversation by role with tool calls and results in
<details>, long system prompts and the function docs folded.

Every piece of model or file text goes through html.escape: model output is hostile, nothing from it
becomes markup. No gradio."""

from __future__ import annotations

import dataclasses
import html
import json
import re

from evalui.core import registry
from evalui.core.benchmark import Said, VerdictView
from evalui.core.record import reason_of, score_of
from evalui.reports.verdicts import verdict_of
from evalui.viewer import messages
from evalui.viewer.inspector_data import gold_answer, prediction_text
from evalui.viewer.rows import error_type_of
from evalui.viewer.texts import Words, english, word_or_key

FOLD_CHARS = 600  # a system prompt or tool result longer than this starts folded
FOLD_LINES = 12
ROLES = ("system", "user", "assistant", "tool")

e = html.escape


def _pre(text: str, role: str) -> str:
    return f'<pre class="evalui-inspector-text" data-role="{e(role)}">{e(text)}</pre>'


def _long(text: str) -> bool:
    return len(text) > FOLD_CHARS or text.count("\n") >= FOLD_LINES


def _data(text: str) -> str:
    """Text of the run (ids, names, model output) inside a line of the page's own words: marked, so
    that the page's words and the run's stay apart (the search marks hits in a fold's text only)."""
    return f'<span class="evalui-data">{e(text)}</span>'


def _folded(label: str, text: str, body: str, *, open_: bool, kind: str) -> str:
    """A fold whose summary is ``label`` (the page's words) then ``text`` (the run's, searched)."""
    shown = f'<span class="evalui-fold-text evalui-data">{e(text)}</span>' if text else ""
    return (f'<details class="evalui-fold" data-kind="{e(kind)}"{" open" if open_ else ""}>'
            f'<summary>{e(label)}{" " if label and text else ""}{shown}</summary>{body}</details>')


def _first_line(text: str, limit: int = 90) -> str:
    line = (text.strip().splitlines() or [""])[0]
    return line if len(line) <= limit and "\n" not in text.strip() else line[:limit] + " …"


def _call_html(call: dict, words: Words) -> str:
    arguments = messages.pretty_arguments(call.get("arguments"))
    short = " ".join(arguments.split())
    summary = f"{call.get('name', '')}({short[:80]}{' …' if len(short) > 80 else ''})"
    return _folded(words("viewer.call"), summary, _pre(arguments, "tool-call"), open_=False, kind="tool-call")


def _message_html(block: dict, words: Words) -> str:
    role = block["role"] if block["role"] in ROLES else "user"
    name = f' · {_data(block["name"])}' if block.get("name") else ""
    parts = [f'<div class="evalui-msg evalui-role-{e(role)}" data-role="{e(role)}" data-step="{block["step"]}">'
             f'<div class="evalui-msg-head"><b>{e(words(f"viewer.role.{role}"))}{name}</b>'
             + (f' <span class="evalui-figures">{e(block["figures"])}</span>' if block.get("figures") else "")
             + "</div>"]
    text = block["text"]
    if role == "tool":
        label = words("viewer.result_of", name=block["name"]) if block.get("name") else words("viewer.result")
        if block.get("error"):
            label += " · " + words("viewer.result_error", error=block["error"])
        body = _pre(text or words("viewer.empty"), "tool-result")
        parts.append(_folded(f"{label}:", _first_line(text), body, open_=not _long(text), kind="tool-result"))
    elif text and role == "system" and _long(text):
        parts.append(_folded(words("viewer.system_prompt", n=len(text)) + ":", _first_line(text), _pre(text, role),
                             open_=False, kind="system"))
    elif text:
        parts.append(_pre(text, role))
    parts += [_call_html(call, words) for call in block.get("calls") or []]
    parts.append("</div>")
    return "".join(parts)


def _metadata_rows(metadata: dict, prefix: str = "") -> list[tuple[str, str]]:
    rows = []
    for key, value in metadata.items():
        if isinstance(value, dict):
            rows += _metadata_rows(value, f"{prefix}{key}.")
        else:
            shown = f"{value:g}" if isinstance(value, float) else json.dumps(value, ensure_ascii=False, default=str) \
                if isinstance(value, list) else str(value)
            rows.append((f"{prefix}{key}", shown))
    return rows


def _say(words: Words, said: Said) -> str:
    """The benchmark's words in the visitor's language; their key when the catalog has none."""
    try:
        return words(said.key, **said.fields)
    except (KeyError, IndexError):
        return said.key


def verdict_view(benchmark: str, sample) -> VerdictView:
    """What the sample's benchmark shows of its verdict beyond the explanation (its render_verdict)."""
    spec = registry.find(benchmark)
    return spec.verdict_view(sample) if spec is not None else VerdictView()


def _tables_html(view: VerdictView, words: Words) -> str:
    parts = []
    for table in view.tables:
        subject = f" {_data(table.subject)}" if table.subject else ""
        heads = "".join(f"<th>{e(_say(words, column))}</th>" for column in table.columns)
        # Every cell is the run's text, in the pane's <pre> blocks: wrapped as the answers are, and searched.
        rows = "".join("<tr>" + "".join(f"<td>{_pre(str(cell), 'verdict-table')}</td>" for cell in row) + "</tr>"
                       for row in table.rows)
        parts.append(f'<h4 class="evalui-verdict-heading" data-key="{e(table.heading.key)}">'
                     f"{e(_say(words, table.heading))}{subject}</h4>"
                     f'<table class="evalui-verdict-table" data-key="{e(table.heading.key)}"><thead><tr>{heads}</tr>'
                     f"</thead><tbody>{rows}</tbody></table>")
    return "".join(parts)


def score_html(benchmark: str, sample, words: Words = english) -> str:
    """The verdict as a score, with the checker's explanation and what the scorer measured."""
    verdict = verdict_of(sample)
    score = score_of(sample)
    raw = sample.verdict or {}
    lines = [f'<section class="evalui-score" data-verdict="{e(verdict)}" data-value="{e(score.value if score else "")}">',
             f'<div><span class="evalui-pill evalui-v-{e(verdict)}">{e(word_or_key(words, "viewer.verdict", verdict))}'
             '</span>']
    if score is not None:
        lines.append(f' {e(words("viewer.score"))} <b class="evalui-data">{e(score.value)}</b>')
        if score.scorer or raw.get("scorer"):
            lines.append(f' · {e(words("viewer.scorer"))} <code>{e(str(score.scorer or raw.get("scorer")))}</code>')
    error_type = error_type_of(sample)
    if error_type:
        lines.append(f' · {e(words("viewer.error_type"))} <code>{e(error_type)}</code>')
    lines.append("</div>")
    # The checker's own words (the exported score's explanation), or the endpoint's error.
    explanation = (reason_of(sample.verdict) or "") if sample.stage == "judged" else (sample.error or "")
    if explanation and explanation != error_type:
        lines.append(f"<h4>{e(words('viewer.explanation'))}</h4>" + _pre(explanation, "reason"))
    elif verdict != "correct":
        lines.append(_pre(explanation or verdict, "reason"))
    metadata = (score.metadata if score is not None else None) or raw.get("metadata")
    if isinstance(metadata, dict) and metadata:
        cells = "".join(f'<tr class="evalui-data"><th>{e(k)}</th><td>{e(v)}</td></tr>' for k, v in _metadata_rows(metadata))
        lines.append(f'<table class="evalui-score-metadata">{cells}</table>')
    answer = prediction_text(benchmark, sample.prediction)
    lines += [f"<h4>{e(words('viewer.final_answer'))}</h4>", _pre(answer or words("viewer.no_answer"), "answer"),
              f"<h4>{e(words('viewer.gold_answer'))}</h4>",
              _pre(gold_answer(benchmark, sample) or words("viewer.no_gold"), "gold")]
    view = verdict_view(benchmark, sample)
    lines.append(_tables_html(view, words))
    # The benchmark's restatement of a field where it has one (a turn counted from 1), the stored value else.
    checker = {k: _say(words, view.record[k]) if k in view.record else v for k, v in raw.items()
               if not isinstance(v, (dict, list))}
    if checker:
        lines.append(_folded(words("viewer.checker"), "", _pre("\n".join(f"{k}: {v}" for k, v in checker.items()),
                                                                "checker"), open_=False, kind="checker"))
    lines.append("</section>")
    return "".join(lines)


def _docs_html(sample, words: Words) -> str:
    docs = messages.function_docs(sample)
    if not docs:
        return ""
    names = [str((d.get("function") or d).get("name", "")) if isinstance(d, dict) else "" for d in docs]
    body = _pre(json.dumps(docs, ensure_ascii=False, indent=2, default=str), "function-docs")
    return _folded(words("viewer.function_docs", n=len(docs)) + ":", ", ".join(names)[:120], body, open_=False,
                   kind="function-docs")


def findings_html(found: list[dict], words: Words = english) -> str:
    """The validity scanners' findings on the sample, numbered as the labelling control lists them."""
    title = f"<h4>{e(words('viewer.findings'))}</h4>"
    if not found:
        return f'{title}<p class="evalui-findings-none">{e(words("viewer.findings_none"))}</p>'
    heads = "".join(f"<th>{e(words(f'viewer.finding.{key}'))}</th>"
                    for key in ("scanner", "severity", "step", "message", "label"))
    rows = "".join(
        f'<tr class="evalui-finding" data-number="{n}" data-scanner="{e(str(f.get("scanner")))}" '
        f'data-severity="{e(str(f.get("severity")))}" data-label="{e(f.get("label") or "")}">'
        f'<td>{n}</td><td class="evalui-data">{e(str(f.get("scanner")))}</td>'
        f'<td>{e(word_or_key(words, "viewer.severity", str(f.get("severity"))))}</td>'
        f'<td>{"–" if f.get("step") is None else e(str(f["step"]))}</td>'
        f'<td class="evalui-data">{e(str(f.get("message") or ""))}</td>'
        f'<td>{e(word_or_key(words, "viewer.label", f["label"]) if f.get("label") else "–")}'
        f'{" (" + _data(f["reviewer"]) + ")" if f.get("reviewer") else ""}</td></tr>'
        for n, f in enumerate(found, start=1))
    return f'{title}<table class="evalui-findings"><thead><tr><th>#</th>{heads}</tr></thead><tbody>{rows}</tbody></table>'


def transcript_html(benchmark: str, sample, exp_id: str, found: list[dict] | None = None,
                    words: Words = english) -> str:
    """The whole pane for one sample; ``found``: its findings, each with ``label``/``reviewer`` when labelled.
    ``words(key, **fields)``: the page's words in the visitor's language (evalui.viewer.texts)."""
    latency = "–" if sample.latency_s is None else f"{sample.latency_s:.2f} s"
    verdict = verdict_of(sample)
    figures = words("viewer.head", prompt=int(sample.prompt_tokens or 0), completion=int(sample.completion_tokens or 0),
                    attempts=int(sample.attempts or 0), steps=len(sample.trajectory or []))
    head = (f'<div class="evalui-inspector evalui-transcript" data-sample="{e(sample.sample_id)}"'
            f' data-verdict="{e(verdict)}" data-run="{e(exp_id)}">'
            f'<p class="evalui-head"><b class="evalui-data">{e(exp_id)}</b> · <b class="evalui-data">'
            f'{e(sample.sample_id)}</b> · {_data(sample.group or "")} · {latency} · {e(figures)}</p>')
    blocks = messages.blocks(sample, words)
    conversation = "".join(_message_html(b, words) for b in blocks) \
        or f'<p class="evalui-empty">{e(words("viewer.no_conversation"))}</p>'
    error = _pre(sample.error, "error") if sample.error and sample.stage != "judged" else ""
    return (head + score_html(benchmark, sample, words) + error + findings_html(found or [], words)
            + f'<h4>{e(words("viewer.transcript"))}</h4>{_docs_html(sample, words)}'
            f'<div class="evalui-messages">{conversation}</div></div>')


# The stored row's bookkeeping, not the sample: which worker held it.
_NOT_SHOWN = ("claimed_by",)


def sample_json(sample) -> str:
    """The stored sample as the JSON tab shows it (and its Copy button copies): every field of the
    record but the worker's claim. A stored sample holds no endpoint settings (no key, no header)."""
    record = dataclasses.asdict(sample) if dataclasses.is_dataclass(sample) and not isinstance(sample, type) \
        else dict(vars(sample))
    return json.dumps({k: v for k, v in record.items() if k not in _NOT_SHOWN}, ensure_ascii=False, indent=2,
                      default=str)


# The pane's texts: its <pre> blocks and the folds' texts (both escaped text, no markup inside; a fold's
# label is the page's own words, never a hit).
_TEXT = re.compile(r'(<pre class="evalui-inspector-text"[^>]*>|<span class="evalui-fold-text evalui-data">)(.*?)'
                   r'(</pre>|</span>)', re.S)
_ENTITY = re.compile(r"(&(?:#\d+|#x[0-9a-fA-F]+|\w+);)")
_FOLD = re.compile(r"<details([^>]*)>(.*?)</details>", re.S)
# The function docs the request offered are not what a search looks in (the store leaves them out of its
# index): they keep no mark, and their fold stays shut.
_DOCS = re.compile(r'(<details class="evalui-fold" data-kind="function-docs".*?</details>)', re.S)


def _hit_pattern(phrases: list[list[str]]) -> re.Pattern | None:
    # As the store's search matches: whole words, a piece's last word also as a prefix (letters and
    # digits make a word; an underscore or any other sign ends it), case-insensitive.
    whole = {w for words in phrases for w in words[:-1]}
    prefixes = {words[-1] for words in phrases if words}
    terms = [re.escape(w) + r"(?![^\W_])" for w in sorted(whole - prefixes, key=len, reverse=True)]
    terms += [re.escape(w) for w in sorted(prefixes, key=len, reverse=True)]
    return re.compile(r"(?<![^\W_])(?:" + "|".join(terms) + ")", re.I) if terms else None


def highlighted(pane: str, phrases: list[list[str]]) -> tuple[str, int]:
    """``pane`` (transcript_html's escaped HTML) with each search hit in its texts wrapped in <mark>,
    the folds holding one opened, and how many hits there are. Only the text of the pane's <pre> blocks
    and the folds' summaries is searched (not the function docs), never markup or a character reference
    (``&amp;`` holds no word "amp")."""
    pattern = _hit_pattern(phrases)
    if pattern is None:
        return pane, 0
    count = 0

    def mark(found: re.Match) -> str:
        nonlocal count
        count += 1
        return f'<mark class="evalui-hit">{found.group(0)}</mark>'

    def in_text(block: re.Match) -> str:
        pieces = _ENTITY.split(block.group(2))
        body = "".join(piece if n % 2 else pattern.sub(mark, piece) for n, piece in enumerate(pieces))
        return block.group(1) + body + block.group(3)

    pane = "".join(piece if n % 2 else _TEXT.sub(in_text, piece) for n, piece in enumerate(_DOCS.split(pane)))

    def opened(fold: re.Match) -> str:
        attributes, body = fold.group(1), fold.group(2)
        if "<mark" in body.partition("</summary>")[2] and not attributes.endswith(" open"):
            attributes += " open"
        return f"<details{attributes}>{body}</details>"

    return (_FOLD.sub(opened, pane) if count else pane), count


def with_tabs(pane: str, sample_json_text: str, words, hits: int | None = None, query: str = "") -> str:
    """The pane under two tabs, the transcript and the sample's JSON, with a button that copies the
    JSON and, for a search (``query``), how many ``hits`` the pane marks. The page's script switches the
    tabs (data-tab) and copies. ``words(key, **fields)``: the catalog's texts in the visitor's language."""
    tabs = "".join(f'<button type="button" role="tab" data-tab="{key}" aria-selected="{str(key == "transcript").lower()}">'
                   f'{e(words(f"viewer.tab.{key}"))}</button>' for key in ("transcript", "json"))
    copy = (f'<button type="button" class="evalui-copy" data-copied="false" data-copied-text="{e(words("viewer.copied"))}">'
            f'{e(words("viewer.copy"))}</button>')
    count = (f'<span class="evalui-hits" data-hits="{hits}">{e(words("viewer.hits", n=hits, query=query))}</span>'
             if hits is not None else "")
    return (f'<div class="evalui-sample" data-tab="transcript"><div class="evalui-tabbar" role="tablist">{tabs}{copy}'
            f'{count}</div><div class="evalui-tab-transcript">{pane}</div><div class="evalui-tab-json">'
            f'<pre class="evalui-json" data-role="json">{e(sample_json_text)}</pre></div></div>')
