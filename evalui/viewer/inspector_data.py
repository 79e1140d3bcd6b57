"""What the sample inspector shows, from stored samples: a filterable index of a run's samples and
one sample in full (conversation, tool calls and results, final answer, gold answer, verdict and
the checker's reason, latency, tokens). No gradio; the page renders ``detail_html``, which escapes
every piece of model text."""

from __future__ import annotations

import html
import json

from evalui.core import registry
from evalui.core.benchmark import payload_target, plain_prediction
from evalui.reports.verdicts import VERDICTS, verdict_of
from evalui.scanners.labels import finding_key

ALL = "all"
ANY_INVALID = "any invalid"  # the finding filter's choice for samples the valid-sample score leaves out
SEARCH_CHARS = 20_000  # of each sample's text searched; a long agent transcript is searched in its head


def error_type_of(sample) -> str:
    if sample.stage != "judged":
        return "endpoint_error" if sample.error else ""
    return "" if sample.correct else str((sample.verdict or {}).get("error_type") or "")


def _content_text(content) -> str:
    """A message's content as text: parts joined, images named (their bytes are never shown)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, dict) and part.get("type") == "image_url":
                parts.append("[image]")
            else:
                parts.append(json.dumps(part, ensure_ascii=False, default=str)[:2000])
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False, default=str)


def _arguments_text(arguments) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, default=str)


def conversation(sample) -> list[dict]:
    """The sample's conversation as turns {role, text, calls, note}, from its stored trajectory
    (or, for a run stored before trajectories, its request and response)."""
    turns: list[dict] = []
    steps = sample.trajectory
    if not steps:
        request, response = sample.request or {}, sample.response or {}
        steps = [{"messages": request.get("messages") or [], "text": response.get("text", "") if isinstance(response, dict) else "",
                  "tool_calls": response.get("tool_calls") or [] if isinstance(response, dict) else []}]
    for number, step in enumerate(steps, start=1):
        for message in step.get("messages") or []:
            calls = [f"{c.get('function', {}).get('name', '')}({c.get('function', {}).get('arguments', '')})"
                     for c in message.get("tool_calls") or [] if isinstance(c, dict)]
            turns.append({"role": str(message.get("role", "")), "text": _content_text(message.get("content")),
                          "calls": calls, "note": ""})
        calls = [f"{c.get('name', '')}({_arguments_text(c.get('arguments'))})" for c in step.get("tool_calls") or []]
        figures = []
        if "prompt_tokens" in step:
            figures.append(f"step {number}: {step.get('prompt_tokens', 0)} + {step.get('completion_tokens', 0)} tokens, "
                           f"{step.get('latency_s', 0.0):.2f} s, {step.get('attempts', 1)} attempt(s)")
        if step.get("note"):
            figures.append(f"not accepted: {step['note']}")
        if step.get("text") or calls or figures:
            turns.append({"role": "assistant", "text": str(step.get("text") or ""), "calls": calls,
                          "note": " · ".join(figures)})
        for result in step.get("tool_results") or []:
            text = _content_text(result.get("content"))
            if result.get("error"):
                text = f"{text}\nerror: {result['error']}".strip()
            turns.append({"role": f"tool {result.get('name', '')}".strip(), "text": text, "calls": [], "note": ""})
    return turns


def gold_answer(benchmark: str, sample) -> str:
    """The answer the checker accepts, as a person reads it (the benchmark's target); "" when the run
    does not know it."""
    spec = registry.find(benchmark)
    target = spec.target(sample) if spec is not None else payload_target(sample)
    return target.text() if target is not None else ""


def prediction_text(benchmark: str, prediction) -> str:
    """The model's answer as the benchmark renders it (calls as calls, say)."""
    spec = registry.find(benchmark)
    return (spec.render_prediction if spec is not None else plain_prediction)(prediction)


def reason_of(sample) -> str:
    """The checker's own words for its verdict, or the endpoint's error."""
    if sample.stage != "judged":
        return sample.error or ""
    verdict = sample.verdict or {}
    for key in ("error", "reason", "message", "comment"):
        if verdict.get(key):
            return str(verdict[key])
    return str(verdict.get("error_type") or "")


def index(samples: list, found: dict[str, list[dict]] | None = None) -> list[dict]:
    """One light row per sample, for the filters and the search; ``found``: each sample's findings."""
    rows = []
    found = found or {}
    for sample in samples:
        mine = found.get(sample.sample_id) or []
        searched = [sample.sample_id, sample.group, plain_prediction(sample.prediction), sample.error or "",
                    reason_of(sample)]
        searched += [t["text"] for t in conversation(sample)]
        rows.append({"id": sample.sample_id, "group": sample.group, "verdict": verdict_of(sample),
                     "error_type": error_type_of(sample), "text": "\n".join(searched)[:SEARCH_CHARS].casefold(),
                     "scanners": sorted({str(f.get("scanner")) for f in mine}),
                     "invalid": any(f.get("severity") == "invalid" for f in mine)})
    return rows


def _has_finding(row: dict, finding: str | None) -> bool:
    if finding in (ALL, "", None):
        return True
    return row.get("invalid", False) if finding == ANY_INVALID else finding in row.get("scanners", ())


def filter_ids(rows: list[dict], *, verdict: str = ALL, group: str = ALL, error_type: str = ALL,
               text: str = "", finding: str = ALL) -> list[str]:
    """Ids of the samples that pass every filter; the search is case-insensitive and matches any words
    order-free; ``finding`` is a scanner's name or ANY_INVALID."""
    words = (text or "").casefold().split()
    return [r["id"] for r in rows
            if verdict in (ALL, "", None, r["verdict"]) and group in (ALL, "", None, r["group"])
            and error_type in (ALL, "", None, r["error_type"]) and _has_finding(r, finding)
            and all(w in r["text"] for w in words)]


def filter_choices(rows: list[dict]) -> dict[str, list[str]]:
    """The values each filter offers for this run (those that occur), "all" first."""
    def seen(key):
        return [ALL, *dict.fromkeys(r[key] for r in rows if r[key])]

    present = {r["verdict"] for r in rows}
    invalid = [ANY_INVALID] if any(r.get("invalid") for r in rows) else []
    scanners = sorted({name for r in rows for name in r.get("scanners", ())})
    return {"verdict": [ALL, *(v for v in VERDICTS if v in present)], "group": seen("group"),
            "error_type": seen("error_type"), "finding": [ALL, *invalid, *scanners]}


def detail(benchmark: str, sample, found: list[dict] | None = None, labels: dict[str, dict] | None = None) -> dict:
    """The sample in full; ``found``: its findings, each with its reviewer's label from ``labels`` (by finding key)."""
    verdict = sample.verdict or {}
    labels = labels or {}
    listed = [{**f, "label": (labels.get(finding_key(sample.sample_id, f)) or {}).get("label", ""),
               "reviewer": (labels.get(finding_key(sample.sample_id, f)) or {}).get("reviewer", "")}
              for f in found or []]
    return {"id": sample.sample_id, "group": sample.group, "verdict": verdict_of(sample),
            "error_type": error_type_of(sample), "reason": reason_of(sample),
            "answer": prediction_text(benchmark, sample.prediction), "gold": gold_answer(benchmark, sample),
            "latency_s": sample.latency_s, "prompt_tokens": sample.prompt_tokens,
            "completion_tokens": sample.completion_tokens, "attempts": sample.attempts,
            "checker": {k: v for k, v in verdict.items() if not isinstance(v, (dict, list))},
            "conversation": conversation(sample), "findings": listed}


def _pre(text: str, role: str) -> str:
    return f'<pre class="evalui-inspector-text" data-role="{html.escape(role)}">{html.escape(text)}</pre>'


def detail_html(record: dict, exp_id: str) -> str:
    """The sample as inert HTML: every value goes through html.escape, nothing from the model is markup."""
    e = html.escape
    latency = "–" if record["latency_s"] is None else f"{record['latency_s']:.2f} s"
    head = (f'<div class="evalui-inspector" data-sample="{e(record["id"])}" data-verdict="{e(record["verdict"])}">'
            f'<p><b>{e(exp_id)}</b> · <b>{e(record["id"])}</b> · {e(record["group"])} · '
            f'<span class="evalui-verdict">{e(record["verdict"])}</span>'
            f'{" · " + e(record["error_type"]) if record["error_type"] else ""} · {latency} · '
            f'{record["prompt_tokens"]} + {record["completion_tokens"]} tokens · {record["attempts"]} attempt(s)</p>')
    parts = [head, "<h4>Final answer</h4>", _pre(record["answer"] or "(none)", "answer"),
             "<h4>Gold answer</h4>", _pre(record["gold"] or "(not known to this run)", "gold"),
             "<h4>Verdict</h4>", _pre(record["reason"] or record["verdict"], "reason")]
    if record["checker"]:
        parts.append(_pre("\n".join(f"{k}: {v}" for k, v in record["checker"].items()), "checker"))
    parts.append(findings_html(record.get("findings") or []))
    parts.append("<h4>Conversation</h4>")
    for turn in record["conversation"]:
        parts.append(f'<div class="evalui-turn"><b>{e(turn["role"])}</b>'
                     f'{" <i>" + e(turn["note"]) + "</i>" if turn["note"] else ""}')
        if turn["text"]:
            parts.append(_pre(turn["text"], turn["role"]))
        for call in turn["calls"]:
            parts.append(_pre(call, "tool-call"))
        parts.append("</div>")
    parts.append("</div>")
    return "".join(parts)


def findings_html(found: list[dict]) -> str:
    """The validity scanners' findings on the sample, numbered as the labelling control lists them."""
    e = html.escape
    if not found:
        return '<h4>Findings</h4><p class="evalui-findings-none">No scanner found anything.</p>'
    rows = "".join(
        f'<tr class="evalui-finding" data-number="{n}" data-scanner="{e(str(f.get("scanner")))}" '
        f'data-severity="{e(str(f.get("severity")))}" data-label="{e(f.get("label") or "")}">'
        f'<td>{n}</td><td>{e(str(f.get("scanner")))}</td><td>{e(str(f.get("severity")))}</td>'
        f'<td>{e(_step(f))}</td><td>{e(str(f.get("message") or ""))}</td>'
        f'<td>{e((f.get("label") or "").replace("_", " ") or "–")}'
        f'{" (" + e(f["reviewer"]) + ")" if f.get("reviewer") else ""}</td></tr>'
        for n, f in enumerate(found, start=1))
    return ('<h4>Findings</h4><table class="evalui-findings"><thead><tr><th>#</th><th>scanner</th><th>severity</th>'
            f'<th>step</th><th>message</th><th>label</th></tr></thead><tbody>{rows}</tbody></table>')


def finding_choices(found: list[dict]) -> list[tuple[str, int]]:
    """(what the labelling control lists, the finding's number) for each finding of a sample."""
    return [(f"{n}. {f.get('scanner')} ({f.get('severity')}, step {_step(f)})", n) for n, f in enumerate(found, start=1)]


def _step(finding: dict) -> str:
    return "–" if finding.get("step") is None else str(finding["step"])
