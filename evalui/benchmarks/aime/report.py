"""Markdown reports for AIME generation, its judge, its win rate, and all three together."""

from __future__ import annotations

from pathlib import Path

from evalui.reports.charts import count_bars, judge_dimension_bars, score_distribution, win_loss_tie, write_html
from evalui.reports.markdown import inert, percent, table, text_bar
from evalui.stats.metrics import JUDGE_DIMENSIONS

WINRATE_TITLE = "Win rate against real AIME problems (both orders agree)"


def _rate(rate: dict) -> str:
    return f"{percent(rate['rate'])} (95% CI {percent(rate['low'])}–{percent(rate['high'])})"


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def topic_lines(topics: dict) -> list[str]:
    total = sum(topics.values()) or 1
    return [table(["topic", "problems", "share", ""],
                  [[t, n, percent(n / total), text_bar(n / total)] for t, n in topics.items()])]


def write_generation_report(folder: Path, summary: dict, problems: list[dict]) -> Path:
    if summary["topics"]:
        write_html(count_bars(summary["topics"], "Generated problems per topic"), folder / "topics.html")
    lines = [
        "# AIME generation report", "",
        f"- Run: `{inert(summary['exp_id'])}` · generator: {inert(summary['model'])}",
        f"- Generated: {summary['generated']} of {summary['requested']} requested; {summary['errors']} failed after retries",
        f"- Invalid or duplicate outputs rejected and retried: {summary['rejected_attempts']}",
        f"- Reference examples from: {inert(summary['reference_source'])}",
        f"- Tokens: {summary['tokens']}", "",
        "## Topic distribution", "", *topic_lines(summary["topics"]), "",
        "## Problems", "",
        table(["id", "topic", "answer", "problem"], [[p["problem_id"], p["topic"], p["answer"], p["problem"]] for p in problems]),
    ]
    return _write(folder / "generation_report.md", lines)


def judge_lines(summary: dict) -> list[str]:
    return [
        f"- Judge: {inert(summary['judge_model'])} · problems judged: {summary['judged']} · judge failures: {summary['failures']}",
        f"- Average score: **{summary['average']:.2f}** / 5",
        f"- Pass rate (average ≥ 3.5): {_rate(summary['pass_rate'])}",
        f"- Excellent rate (average ≥ 4.5): {_rate(summary['excellent_rate'])}", "",
        table(["dimension", "average", ""],
              [[d, f"{summary['dimensions'][d]:.2f}", text_bar(summary['dimensions'][d] / 5)] for d in JUDGE_DIMENSIONS]),
        *calibration_lines(summary.get("calibrated")),
    ]


def calibration_lines(calibrated: dict | None) -> list[str]:
    """The judge's figures beside the reviewers' and corrected by them, once problems have been reviewed."""
    from evalui.review.calibration import figure_rows, why_not_corrected

    if not calibrated:
        return []
    if "error" in calibrated:
        return ["", f"The judge's figures are not corrected by the reviews: {inert(calibrated['error'])}"]
    if not calibrated["n_labelled"]:
        return ["", "No problem has been reviewed yet: the figures above are the judge's alone. Once reviewers have "
                    "checked some, `evalui aime calibrate FILE` corrects them."]
    method = calibrated["method"]
    lines = ["", "### Corrected by the reviews", "",
             f"- Reviewed: {calibrated['n_labelled']} problems · not reviewed: {calibrated['n_unlabelled']} · "
             f"pass rate by Rogan–Gladen, means and win rate by PPI++, {inert(method['weighting'])}",
             f"- Human verdict: {inert(method['human_verdict'])}", "",
             table(["figure", "judge only", "reviewers only", "corrected", "report"],
                   figure_rows(calibrated)), ""]
    lines += [f"- Not corrected: {inert(reason)}" for reason in why_not_corrected(calibrated)]
    following = calibrated["review_next"]
    if following["problem_ids"]:
        after = following["half_width_after"]
        lines.append(f"- Review next: {', '.join(inert(p) for p in following['problem_ids'])}"
                     + (f" (expected pass-rate interval ±{after:.1%} after them)" if after is not None else ""))
    return lines


def write_judge_report(folder: Path, stem: str, summary: dict, results: list[dict]) -> Path:
    write_html(judge_dimension_bars(summary["dimensions"]), folder / f"{stem}_judge_dimensions.html")
    write_html(score_distribution(summary["score_distribution"]), folder / f"{stem}_judge_scores.html")
    lines = ["# LLM judge report", "", *judge_lines(summary), "", "## Per problem", "",
             table(["id", "topic", *JUDGE_DIMENSIONS, "average", "correctness comment"],
                   [[r["problem_id"], r.get("topic", ""), *(r["scores"][d]["score"] for d in JUDGE_DIMENSIONS),
                     f"{r['total']:.2f}", r["scores"]["correctness"]["comment"]] for r in results])]
    return _write(folder / f"{stem}_judge_report.md", lines)


def winrate_lines(summary: dict) -> list[str]:
    return [
        f"- Judge: {inert(summary['judge_model'])} · real problems from: {inert(summary['real_source'])}",
        f"- Pairs: {summary['pairs']}, each judged blind in both orders; {summary['inconsistent_pairs']} "
        f"pairs whose two verdicts disagreed count as ties; {summary['failures']} pairs failed", "",
        table(["outcome", "pairs", "rate (95% CI)"],
              [["generated better (win)", summary["win_rate"]["successes"], _rate(summary["win_rate"])],
               ["real better (loss)", summary["loss_rate"]["successes"], _rate(summary["loss_rate"])],
               ["tie", summary["tie_rate"]["successes"], _rate(summary["tie_rate"])]]),
    ]


def write_winrate_report(folder: Path, stem: str, summary: dict) -> Path:
    write_html(win_loss_tie(summary, WINRATE_TITLE), folder / f"{stem}_winrate.html")
    return _write(folder / f"{stem}_winrate_report.md", ["# Win rate report", "", *winrate_lines(summary)])


def conclusion(judge: dict, winrate: dict) -> tuple[str, list[str]]:
    average, win = judge["average"], winrate["win_rate"]["rate"]
    if average >= 4.0 and win >= 0.4:
        verdict = "The generated problems are close to real AIME quality."
    elif average >= 3.5:
        verdict = "The generated problems are usable but fall short of real AIME problems."
    else:
        verdict = "The generated problems need work before use."
    weakest = min(judge["dimensions"], key=judge["dimensions"].get) if judge["judged"] else None
    steps = []
    if weakest:
        steps.append(f"Improve {weakest.replace('_', ' ')}, the weakest judge dimension ({judge['dimensions'][weakest]:.2f}).")
    if winrate["inconsistent_pairs"]:
        steps.append(f"{winrate['inconsistent_pairs']} pairs flipped with the order shown: the judge is position-biased; "
                     "consider a stronger judge model.")
    steps.append("Send the problems to the human verification panel before using them as data.")
    return verdict, steps


def write_comprehensive_report(folder: Path, stem: str, generation: dict, judge: dict, winrate: dict) -> Path:
    verdict, steps = conclusion(judge, winrate)
    lines = [
        "# AIME generated data: evaluation report", "",
        "## Basic information", "",
        f"- Generator: {inert(generation['model'])} · judge: {inert(judge['judge_model'])}",
        f"- Problems: {generation['generated']} generated of {generation['requested']} requested",
        f"- Data file: `{inert(Path(generation['output']).name)}`", "",
        "## Topic distribution", "", *topic_lines(generation["topics"]), "",
        "## LLM judge", "", *judge_lines(judge), "",
        "## Win rate against real AIME problems", "", *winrate_lines(winrate), "",
        "## Conclusion", "", verdict, "",
        "## Next steps", "", *[f"- {step}" for step in steps], "",
    ]
    return _write(folder / f"{stem}_report.md", lines)
