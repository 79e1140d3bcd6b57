"""Pieces of what the sample inspector shows, from stored samples: a sample's error type, a message's
content as text, the gold and final answers as a person reads them, the filters' choices and the
labelling control's choices (the pane's findings table is evalui.viewer.transcript's). No gradio.
The viewer reads a run's list through evalui.viewer.data and evalui.viewer.rows, and shows a sample with evalui.viewer.transcript (the
checker's reason is evalui.core.record.reason_of, the exported score's explanation)."""

from __future__ import annotations

import json

from evalui.core import registry
from evalui.core.benchmark import payload_target, plain_prediction
from evalui.reports.verdicts import VERDICTS

ALL = "all"
ANY_INVALID = "any invalid"  # the finding filter's choice for samples the valid-sample score leaves out


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


def filter_choices(rows: list[dict]) -> dict[str, list[str]]:
    """The values each filter offers for this run (those that occur), "all" first."""
    def seen(key):
        return [ALL, *dict.fromkeys(r[key] for r in rows if r[key])]

    present = {r["verdict"] for r in rows}
    invalid = [ANY_INVALID] if any(r.get("invalid") for r in rows) else []
    scanners = sorted({name for r in rows for name in r.get("scanners", ())})
    return {"verdict": [ALL, *(v for v in VERDICTS if v in present)], "group": seen("group"),
            "error_type": seen("error_type"), "finding": [ALL, *invalid, *scanners]}


def finding_choices(found: list[dict]) -> list[tuple[str, int]]:
    """(what the labelling control lists, the finding's number) for each finding of a sample."""
    return [(f"{n}. {f.get('scanner')} ({f.get('severity')}, step {_step(f)})", n) for n, f in enumerate(found, start=1)]


def _step(finding: dict) -> str:
    return "–" if finding.get("step") is None else str(finding["step"])
