"""One GAIA task's transcript as inert HTML: each model call with its tool calls and their results.

Everything shown came from the model, the tools or the dataset, so every text is escaped and sits
in a <pre>; nothing in a transcript can become markup or script on the page.
"""

from __future__ import annotations

import html
import json

SYSTEM_PREVIEW_CHARS = 120


def _pre(text: str, kind: str) -> str:
    return f'<pre class="gaia-{kind}" style="white-space:pre-wrap;margin:4px 0">{html.escape(text)}</pre>'


def _content(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") if p.get("type") == "text" else "[image]" for p in content if isinstance(p, dict))
    return "" if content is None else json.dumps(content)


def _arguments(name: str, arguments: str) -> str:
    try:
        value = json.loads(arguments)
    except (ValueError, TypeError):
        return str(arguments)
    if name == "python" and isinstance(value, dict) and isinstance(value.get("code"), str):
        return value["code"]  # code reads best as code
    return json.dumps(value, indent=2, ensure_ascii=False)


def _message(message: dict) -> str:
    role = str(message.get("role", ""))
    text = _content(message.get("content"))
    if role == "system" and len(text) > SYSTEM_PREVIEW_CHARS:
        return (f"<details><summary>system prompt</summary>{_pre(text, 'system')}</details>")
    if role == "tool":
        return ""  # shown under the call that produced it
    return f"<div><b>{html.escape(role)}</b>{_pre(text, role)}</div>"


def _step(number: int, step: dict) -> str:
    parts = ['<div class="gaia-step" style="border-left:3px solid #8884;padding-left:8px;margin:8px 0">',
             f"<b>Step {number}</b> · {step.get('prompt_tokens', 0)} + {step.get('completion_tokens', 0)} tokens · "
             f"{float(step.get('latency_s') or 0):.2f} s"]
    parts += [_message(m) for m in step.get("messages") or [] if isinstance(m, dict)]
    if step.get("text"):
        parts.append(f"<div><b>model</b>{_pre(str(step['text']), 'model')}</div>")
    results = step.get("tool_results") or []
    for index, call in enumerate(step.get("tool_calls") or []):
        name = str(call.get("name", ""))
        parts.append(f"<div><b>calls {html.escape(name)}</b>{_pre(_arguments(name, call.get('arguments', '')), 'call')}</div>")
        if index < len(results):
            result = results[index]
            label = f"result (error: {result['error']})" if result.get("error") else "result"
            parts.append(f"<div><b>{html.escape(label)}</b>{_pre(str(result.get('content', '')), 'result')}</div>")
    if step.get("note"):
        parts.append(f"<div><i>{html.escape(str(step['note']))}</i></div>")
    parts.append("</div>")
    return "".join(parts)


def transcript_html(sample) -> str:
    """The task's steps, its answer and verdict, and the error that stopped it, if one did."""
    steps = sample.trajectory or []
    verdict = sample.verdict or {}
    head = (f"<p><b>{html.escape(sample.sample_id)}</b> · {len(steps)} model call(s) · answer: "
            f"<code>{html.escape(str(sample.prediction if sample.prediction is not None else '–'))}</code>"
            + (f" · {'correct' if verdict.get('exact') else 'wrong'}" if verdict.get("scored") else "") + "</p>")
    body = "".join(_step(n, s) for n, s in enumerate(steps, start=1) if isinstance(s, dict))
    error = f"<p><b>error</b>{_pre(sample.error, 'error')}</p>" if sample.error else ""
    return f'<div class="gaia-transcript">{head}{body or "<p>no steps recorded</p>"}{error}</div>'
