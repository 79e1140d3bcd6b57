"""The Markdown report of a BFCL run, with its chart beside it."""

from __future__ import annotations

import json
from pathlib import Path

from evalui.benchmarks.bfcl.data import stored_entry
from evalui.benchmarks.bfcl.format_sensitivity import chart as format_sensitivity_chart
from evalui.benchmarks.bfcl.format_sensitivity import report_lines as format_sensitivity_lines
from evalui.core.run_config import RunConfig
from evalui.reports.charts import accuracy_bars, count_bars, write_html
from evalui.reports.cost import cost_lines
from evalui.reports.markdown import epoch_lines, inert, percent, table, text_bar, validity_lines

SAMPLE_ROWS = 50


def question_of(sample) -> str:
    entry = stored_entry(sample)
    messages = entry.user_messages() if entry else []
    return next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")


def truth_of(sample) -> str:
    entry = stored_entry(sample)
    if entry is None or entry.possible_answer is None:
        return "no call" if "irrelevance" in sample.group else "any call"
    return json.dumps(entry.possible_answer, ensure_ascii=False)


PART_NAMES = {"non_live": "non-live (AST)", "live": "live (AST)", "irrelevance": "irrelevance",
              "multi_turn": "multi-turn", "agentic": "agentic (memory and web search)"}
OTHER_SUBTOTALS = {"non_live_simple": "non-live simple", "relevance": "relevance (not weighted)",
                   "web_search": "web search", "memory": "memory"}


def leaderboard_lines(board: dict) -> list[str]:
    """The overall score and every subtotal, as bfcl-eval combines them, with the parts run."""
    if not board or "overall" not in board:
        return []
    lines = ["## Leaderboard", "",
             f"- Overall (weighted as the leaderboard: non-live 10 %, live 10 %, irrelevance 10 %, multi-turn 30 %, "
             f"agentic 40 %): **{percent(board['overall'])}**",
             f"- Parts run: {', '.join(PART_NAMES[p] for p in board['parts_run']) or 'none'}"]
    if board.get("partial"):
        missing = ", ".join(PART_NAMES[p] for p in board["parts_missing"])
        lines += ["", "> **Warning: partial overall score.** Categories that were not run count as 0, as on the "
                  "leaderboard" + (f"; not run at all: {missing}" if missing else "; some parts were run only in "
                                   "part") + ". Run `--category all` for the leaderboard's figure."]
    if board.get("subset"):
        lines += ["", "> Some categories were run on part of their entries (`--limit`): their accuracies are "
                  "those of the entries run, as `bfcl evaluate --partial-eval` computes them."]
    rows = []
    for key, name in [*PART_NAMES.items(), *OTHER_SUBTOTALS.items()]:
        if key in board:
            part = board[key]
            weight = f"{part['weight'] * 100:.0f} %" if "weight" in part else "–"
            rows.append([name, weight, percent(part["accuracy"]), "all" if part["complete"] else "partial",
                         part["total"], ", ".join(part["categories"]), ", ".join(part["missing"]) or "–"])
    lines += ["", table(["part", "weight", "accuracy (missing count 0)", "categories", "samples", "run",
                         "not run"], rows), "",
              "The leaderboard's CSVs (data_overall.csv and its sections) are written beside this report by "
              "bfcl-eval's own writer; a category not run shows as N/A there.", ""]
    return lines


def overall_line(board: dict) -> list[str]:
    if "overall" not in board:
        return []
    return [f"- BFCL v4 overall: **{percent(board['overall'])}**"
            + (" (partial: categories not run count as 0, see Leaderboard)" if board.get("partial") else "")]


def write_bfcl_report(folder: Path, experiment: dict, summary: dict, judged: list) -> Path:
    write_html(accuracy_bars(summary["by_category"], "BFCL accuracy per category"), folder / "accuracy.html")
    if summary["error_types"]:
        write_html(count_bars(summary["error_types"], "Error types"), folder / "errors.html")
    sensitivity = summary.get("format_sensitivity")
    if sensitivity:
        write_html(format_sensitivity_chart(sensitivity), folder / "format_sensitivity.html")
    endpoint = RunConfig.of(experiment).endpoint or {}
    lines = [
        "# BFCL evaluation report",
        "",
        "## Overview",
        "",
        f"- Experiment: `{inert(summary['exp_id'])}`",
        f"- Model: {inert(summary['model'])} at {inert(endpoint.get('host', ''))} ({summary['mode']} mode)",
        f"- Sent with every request: temperature {endpoint.get('temperature')}, "
        + (f"max_tokens {endpoint['max_tokens']}" if endpoint.get("max_tokens") else "no max_tokens")
        + ", store false (bfcl-eval's OpenAI handler sends the same)",
        f"- Samples: {summary['judged']} judged of {summary['total']}; {summary['errors']} endpoint errors",
        f"- Accuracy: **{percent(summary['accuracy'])}** (95% CI {percent(summary['ci95'][0])}–{percent(summary['ci95'][1])})",
        *overall_line(summary.get("leaderboard") or {}),
        f"- Tokens: {summary['tokens']}",
        f"- Status: {summary['status']}",
        "",
        "## Accuracy per category",
        "",
        table(
            ["category", "correct", "total", "accuracy", ""],
            [[c, p["successes"], p["total"], percent(p["rate"]), text_bar(p["rate"])] for c, p in summary["by_category"].items()],
        ),
        "",
        "Chart: [accuracy.html](accuracy.html)",
        "",
        *validity_lines(summary),
        *epoch_lines(summary),
        *cost_lines(summary),
        *leaderboard_lines(summary.get("leaderboard") or {}),
        *format_sensitivity_lines(sensitivity),
        "## Error types",
        "",
        table(["error type", "count"], summary["error_types"].items()) if summary["error_types"] else "No wrong answers.",
        "",
        f"## Samples (first {SAMPLE_ROWS})",
        "",
        table(
            ["id", "question", "prediction", "ground truth", "verdict"],
            [
                [s.sample_id, question_of(s), json.dumps(s.prediction, ensure_ascii=False), truth_of(s),
                 "✅" if s.correct else f"❌ {(s.verdict or {}).get('error_type', '')}"]
                for s in judged[:SAMPLE_ROWS]
            ],
        ),
        "",
    ]
    path = folder / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
