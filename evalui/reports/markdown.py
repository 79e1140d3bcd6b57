"""Small Markdown builders. Model output is escaped so a report never runs or renders it as HTML."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence


def inert(text: object, limit: int | None = 300) -> str:
    """Text safe inside a Markdown table cell: HTML-escaped, one line, pipes and backticks neutralised."""
    value = "" if text is None else str(text)
    if limit and len(value) > limit:
        value = value[: limit - 1] + "…"
    value = html.escape(value, quote=True)
    return value.replace("|", "&#124;").replace("`", "&#96;").replace("\r", " ").replace("\n", " ")


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(inert(cell) for cell in row) + " |")
    return "\n".join(lines)


def percent(rate: float | None) -> str:
    return "–" if rate is None else f"{rate * 100:.1f}%"


def text_bar(rate: float, width: int = 20) -> str:
    filled = round(max(0.0, min(1.0, rate)) * width)
    return "█" * filled + "░" * (width - filled)


def epoch_texts(figures: dict) -> tuple[str, str, str]:
    """(mean, standard error, ``pass@1 66.7% · pass@3 80.0%``) of a summary's ``epochs`` figures."""
    stderr = "–" if figures["stderr"] is None else percent(figures["stderr"])
    passes = " · ".join(f"pass@{k} {percent(v)}" for k, v in (figures.get("pass_at_k") or {}).items())
    return percent(figures["mean_accuracy"]), stderr, passes


def epoch_lines(summary: dict) -> list[str]:
    """The report's section on repeats, for a run that asked each sample more than once."""
    figures = summary.get("epochs")
    if not figures:
        return []
    mean, stderr, passes = epoch_texts(figures)
    return ["## Repeats", "",
            f"- {figures['epochs']} epochs over {figures['samples']} samples (errors count as wrong)",
            f"- Mean accuracy over epochs: **{mean}** ± {stderr} (standard error, clustered by sample)",
            f"- {passes or 'pass@k: –'} (unbiased estimator)", ""]
