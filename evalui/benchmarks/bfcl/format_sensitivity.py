"""BFCL format sensitivity in a run: the refusal of FC mode, the summary block, the chart and the
report's section. Verdicts and figures come from evalui.benchmarks.bfcl.scoring.format_sensitivity.

bfcl-eval asks a prompting model the same 200 entries in 26 system-prompt configurations (return
format × tool-call tag × function-doc format, plus a Markdown prompt and an experimental wording)
and reports each configuration's accuracy and, across them, the spread (max − min) and the standard
deviation in percentage points (``data_format_sensitivity.csv``). FC models are skipped by
``bfcl generate``: their calls do not go through a prompt format.
"""

from __future__ import annotations

from collections.abc import Iterable

from evalui.benchmarks.bfcl.scoring.format_sensitivity import (
    CATEGORY,
    configurations,
    parse_configuration,
    short_name,
    statistics_of,
)
from evalui.errors import InputError

FC_REFUSAL = ("format_sensitivity measures how a prompting model's accuracy moves across 26 prompt formats; "
              "in FC mode the calls never go through a prompt format (bfcl generate skips it for FC models). "
              "Run it with --mode prompt.")


def check_mode(categories: Iterable[str], mode: str) -> None:
    if mode != "prompt" and CATEGORY in categories:
        raise InputError(FC_REFUSAL)


def official_header(samples: Iterable) -> dict | None:
    """The score file's header ``bfcl evaluate`` would write for the run's judged format-sensitivity
    samples (the leaderboard table's ``format_sensitivity`` row), or None without any."""
    verdicts = [(s.sample_id, bool(s.correct)) for s in samples
                if s.group == CATEGORY and s.stage == "judged" and s.correct is not None]
    return statistics_of(verdicts) if verdicts else None


def summary_block(header: dict) -> dict:
    """summary.json's ``format_sensitivity``: per configuration (bfcl's order) its accuracy, and
    across them the spread and standard deviation as the CSV prints them (percentage points)."""
    order = [c for c in configurations() if c in header]
    by_config = {c: {"label": short_name(c), **parse_configuration(c), "accuracy": header[c]["accuracy"],
                     "correct": header[c]["correct_count"], "total": header[c]["total_count"]} for c in order}
    best = max(order, key=lambda c: header[c]["accuracy"]) if order else None
    worst = min(order, key=lambda c: header[c]["accuracy"]) if order else None
    totals = {header[c]["total_count"] for c in order}
    return {
        "accuracy": header["accuracy"], "correct": header["correct_count"], "total": header["total_count"],
        "spread_pp": header["accuracy_max_delta"], "std_pp": header["accuracy_std"],
        "variance_pp2": header["accuracy_variance"],
        "configurations_run": len(order), "configurations_total": len(configurations()),
        "entries_per_configuration": max(totals) if totals else 0, "balanced": len(totals) <= 1,
        "best": best, "worst": worst, "by_configuration": by_config,
    }


def chart(block: dict):
    """Accuracy per configuration, with the best and worst marked and the spread between them."""
    import plotly.graph_objects as go

    configs = list(block["by_configuration"])
    rows = [block["by_configuration"][c] for c in configs]
    colours = ["#2a9d8f" if c == block["best"] else "#e76f51" if c == block["worst"] else "#8d99ae" for c in configs]
    figure = go.Figure(go.Bar(
        x=[r["label"] for r in rows], y=[r["accuracy"] for r in rows], marker_color=colours,
        text=[f"{r['accuracy'] * 100:.1f}%" for r in rows], hovertext=configs,
        hovertemplate="%{hovertext}<br>%{y:.1%}<extra></extra>"))
    if configs:
        high = block["by_configuration"][block["best"]]["accuracy"]
        low = block["by_configuration"][block["worst"]]["accuracy"]
        figure.add_hline(y=high, line_dash="dot", line_color="#2a9d8f", annotation_text=f"max {high * 100:.1f}%")
        figure.add_hline(y=low, line_dash="dot", line_color="#e76f51", annotation_text=f"min {low * 100:.1f}%",
                         annotation_position="bottom right")
        figure.add_hrect(y0=low, y1=high, fillcolor="#e9c46a", opacity=0.15, line_width=0)
    figure.update_layout(
        title=f"Format sensitivity: accuracy per prompt configuration (spread {block['spread_pp']} pp, "
              f"std {block['std_pp']} pp)",
        yaxis={"range": [0, 1.05], "tickformat": ".0%"}, xaxis={"tickangle": -45}, margin={"t": 60, "b": 160})
    return figure


def report_lines(block: dict | None) -> list[str]:
    from evalui.reports.markdown import percent, table

    if not block:
        return []
    lines = ["## Format sensitivity", "",
             f"- Configurations: {block['configurations_run']} of {block['configurations_total']}, "
             f"{block['entries_per_configuration']} entries each"
             + ("" if block["balanced"] else " (not all configurations were judged on the same number of entries)"),
             f"- Spread (max − min): **{block['spread_pp']} pp**; standard deviation: **{block['std_pp']} pp** "
             "(as the leaderboard's data_format_sensitivity.csv reports them)",
             f"- Best: {block['by_configuration'][block['best']]['label']}; "
             f"worst: {block['by_configuration'][block['worst']]['label']}", "",
             table(["configuration", "return format", "tool-call tag", "function docs", "accuracy", "correct", "total"],
                   [[c, r["return_format"], "yes" if r["tool_call_tag"] else "no", r["function_doc_format"],
                     percent(r["accuracy"]), r["correct"], r["total"]]
                    for c, r in block["by_configuration"].items()]),
             "", "Chart: [format_sensitivity.html](format_sensitivity.html)", ""]
    return lines
