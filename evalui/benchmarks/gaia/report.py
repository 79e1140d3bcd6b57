"""GAIA exports for people: the Markdown report with charts, and an honest submission guide."""

from __future__ import annotations

from pathlib import Path

from evalui.core.run_config import RunConfig
from evalui.reports.charts import accuracy_bars, histogram, write_html
from evalui.reports.cost import cost_lines
from evalui.reports.markdown import epoch_lines, inert, percent, table, text_bar, validity_lines

SAMPLE_ROWS = 50


def source_label(source: str) -> str:
    """The run's source with its file or folder named, not where the server keeps it."""
    kind, _, rest = source.partition(":")
    if kind == "questions":
        return f"questions:{Path(rest).name}"
    if kind == "folder":
        folder, _, split = rest.rpartition("@")
        return f"folder:{Path(folder).name}@{split}"
    return source


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f} s"


def write_gaia_report(folder: Path, experiment: dict, summary: dict, rows: list[dict]) -> Path:
    if summary["by_level"]:
        write_html(accuracy_bars(summary["by_level"], "GAIA accuracy per level"), folder / "accuracy_by_level.html")
    latencies = [r["latency_s"] for r in rows if r["latency_s"] is not None]
    if latencies:
        write_html(histogram(latencies, "Latency per task", "seconds"), folder / "latency.html")
    drops = summary["level_drop_rates"]
    lines = [
        "# GAIA evaluation report",
        "",
        "## Overview",
        "",
        f"- Experiment: `{inert(summary['exp_id'])}` · model or agent: {inert(summary['model'])}",
        f"- Source: {inert(source_label((experiment['config'].get('options') or {}).get('source', '')))}",
        f"- Tasks: {summary['judged']} answered of {summary['total']} ({summary['scored']} with a known answer); "
        f"{summary['errors']} errors",
        f"- Exact match (leaderboard scorer): **{percent(summary['accuracy'])}** "
        f"(95% CI {percent(summary['ci95'][0])}–{percent(summary['ci95'][1])})",
        f"- Lenient match (articles dropped, list order ignored; not the leaderboard's): {percent(summary['lenient_accuracy'])}",
        f"- Latency: median {_seconds(summary['latency_median_s'])}, p90 {_seconds(summary['latency_p90_s'])}",
        f"- Average annotated steps: {summary['average_steps'] if summary['average_steps'] is not None else '–'}",
        f"- Tokens: {summary['tokens']}",
        *agent_lines(experiment, summary),
        "",
        *validity_lines(summary),
        *epoch_lines(summary),
        *cost_lines(summary),
        "## Accuracy per level",
        "",
        table(["level", "correct", "total", "accuracy", ""],
              [[lvl, p["successes"], p["total"], percent(p["rate"]), text_bar(p["rate"])] for lvl, p in summary["by_level"].items()]),
        "",
        # Levels come from the questions' metadata, which a visitor may upload: escaped like model text.
        "Level drop rates: " + (", ".join(f"{inert(k)}: {percent(v)}" for k, v in drops.items()) if drops else "–"),
        "",
        "Charts: [accuracy_by_level.html](accuracy_by_level.html) · [latency.html](latency.html)",
        "",
        f"## Tasks (first {SAMPLE_ROWS})",
        "",
        table(["task", "level", "question", "prediction", "truth", "exact", "lenient"],
              [[r["task_id"], r["level"], r["question"], r["model_answer"], r["final_answer"],
                {True: "✅", False: "❌", None: "–"}[r["exact"]], {True: "✅", False: "❌", None: "–"}[r["lenient"]]]
               for r in rows[:SAMPLE_ROWS]]),
        "",
        f"Leaderboard submission: `{Path(summary['submission']).name}` · guide: `{Path(summary['guide']).name}`",
        "",
    ]
    path = folder / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def agent_lines(experiment: dict, summary: dict) -> list[str]:
    """The tool agent's figures: steps, tool errors, tokens and cost per task."""
    options = RunConfig.of(experiment).options
    lines = []
    if options.get("tools"):
        rate = summary.get("tool_error_rate")
        lines += [f"- Agent tools: {inert(', '.join(options['tools']))} · at most {options.get('max_steps')} steps, "
                  f"{options.get('tool_timeout')} s per program",
                  f"- Model calls per task: mean {_number(summary.get('steps_mean'))}, "
                  f"median {_number(summary.get('steps_median'))}",
                  f"- Tool calls: {summary.get('tool_calls', 0)}, failed {summary.get('tool_errors', 0)} "
                  f"({percent(rate) if rate is not None else '–'})"]
    lines.append(f"- Tokens per task: {_number(summary.get('tokens_per_task'))}")
    cost = summary.get("cost") or {}
    if cost.get("usd") is not None:
        lines.append(f"- Cost (USD, priced by {cost.get('priced_by')}): {cost['usd']:.4f}, "
                     f"{summary['cost_per_task']:.4f} per task")
    return lines


def _number(value) -> str:
    return "–" if value is None else f"{value:.1f}"


def write_submission_guide(folder: Path, summary: dict) -> Path:
    text = f"""# Submitting to the GAIA leaderboard

File: `submission.jsonl` ({summary['judged']} tasks), one JSON object per line:
`{{"task_id": "...", "model_answer": "...", "reasoning_trace": "..."}}`.

Rules that decide your score:

- Only the **test** split counts for the leaderboard. Validation answers are public, so a
  validation score is for your own checks, not a claim.
- Submit every task of the split: validation has 165 (53 / 86 / 26 by level), test has 301
  (93 / 159 / 49). Missing tasks count as wrong.
- `model_answer` is compared exactly as the leaderboard's scorer does: numbers as numbers (after
  removing `$`, `%` and `,`), strings without whitespace and punctuation, lowercased. Lists are
  split on `,` and `;` and compared **in order**: do not sort them, and nothing in this file was
  sorted. Articles are **not** removed: "The Beatles" and "Beatles" differ.
- Keep answers short: a number, a few words, or a comma-separated list, as GAIA's system prompt asks.

Upload the file on the GAIA leaderboard Space (gaia-benchmark/leaderboard) with your model's name
and organisation.
"""
    path = folder / "SUBMISSION_GUIDE.md"
    path.write_text(text, encoding="utf-8")
    return path
