"""What the verification panel shows: the current problem with its saved review, the counts, the
agreement chart, the list of reviewable files, and bad files explained in one line."""

from __future__ import annotations

from pathlib import Path

import gradio as gr
import pandas as pd
import plotly.graph_objects as go

from evalui import verification as reviews_file
from evalui.verification_input import FileProblem, is_companion
from evalui.benchmarks.aime.run import generated_files
from evalui.config import data_dir, runs_dir
from evalui.errors import InputError
from evalui.scoring.metrics import JUDGE_DIMENSIONS
from evalui.ui.access import bare_names, say
from evalui.ui.latex import inert_markdown, problem_markdown

DEFAULT_SCORE = 3


def uploads_dir() -> Path:
    return data_dir() / "uploads"


def file_choices() -> list[tuple[str, str]]:
    """Generated files under runs/ and uploads/, without the reviews, judge and export files beside them."""
    runs = [(str(p.relative_to(runs_dir())), str(p)) for p in generated_files(runs_dir())]
    folder = uploads_dir()
    uploads = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True) if folder.is_dir() else []
    return [(label, path) for label, path in [*runs, *((f"uploads/{p.name}", str(p)) for p in uploads)]
            if not is_companion(path)]


def explain(exc: InputError) -> str:
    """One line for the page: the bare file name, the line if any, and what is wrong, in the visitor's language."""
    name = Path(exc.path).name if exc.path else ""
    where = f"{name}:{exc.line}: " if name and exc.line else f"{name}: " if name else ""
    if isinstance(exc, reviews_file.CorruptVerificationFile):
        detail = say(f"file.{exc.problem.reason}", **exc.problem.fields)
        text = say("verify.reviews_unreadable", detail=detail)
        if exc.backup:
            text += " " + say("verify.backup", name=exc.backup.name)
        return where + text
    if isinstance(exc, FileProblem):
        return where + say(f"file.{exc.reason}", **exc.fields)
    text = str(exc)
    prefix = f"{exc.path}:{exc.line}: " if exc.line else f"{exc.path}: "
    return where + bare_names(text[len(prefix):] if exc.path and text.startswith(prefix) else text)


def problems_of(path: str | None) -> list[dict]:
    if not path:
        return []
    resolved = Path(path).resolve()
    if not any(root in resolved.parents for root in (runs_dir(), data_dir())):
        raise gr.Error(say("verify.outside"))
    return reviews_file.read_data_file(resolved)


def _judge_markdown(judged: dict | None) -> str:
    if not judged:
        return say("verify.no_judge")
    rows = "\n".join(f"| {d} | {judged[d]:.1f} |" for d in JUDGE_DIMENSIONS)
    return f"{say('verify.judge_table')}\n{rows}"


def render(position: dict) -> tuple:
    """Everything the panel shows for the session's current problem, with that problem's saved values."""
    path, index = position.get("file"), position.get("index", 0)
    problems = problems_of(path)
    if not problems:
        return (say("verify.start"), "", *([DEFAULT_SCORE] * 4), None, "", "", gr.update(choices=[]))
    index = max(0, min(index, len(problems) - 1))
    problem = problems[index]
    reviews, flagged = reviews_file.read_reviews(reviews_file.verifications_path(path))
    saved = reviews.get(problem["problem_id"])
    judged = reviews_file.judge_scores(reviews_file.judge_file(path)).get(problem["problem_id"])
    scores = saved["scores"] if saved else {d: DEFAULT_SCORE for d in JUDGE_DIMENSIONS}
    where = say("verify.where", n=index + 1, total=len(problems), problem_id=inert_markdown(problem["problem_id"]))
    if saved:
        where += say("verify.reviewed_by", reviewer=inert_markdown(saved.get("reviewer")),
                     when=inert_markdown(saved.get("verified_at")), status=saved["status"])
    elif problem["problem_id"] in flagged:
        where += say("verify.review_flagged", reason=inert_markdown(flagged[problem["problem_id"]]))
    else:
        where += say("verify.not_reviewed")
    comments = saved.get("comments") if saved else ""
    return (problem_markdown(problem), _judge_markdown(judged), *(scores[d] for d in JUDGE_DIMENSIONS),
            saved["status"] if saved else None, comments if isinstance(comments, str) else "", where,
            gr.update(choices=[p["problem_id"] for p in problems], value=problem["problem_id"]))


def progress_view(position: dict) -> tuple:
    path = position.get("file")
    problems = problems_of(path)
    if not problems:
        return "", None, None
    ids = {p["problem_id"] for p in problems}
    reviews, flagged = reviews_file.read_reviews(reviews_file.verifications_path(path))
    counts = reviews_file.review_progress(problems, reviews)
    agreed = reviews_file.agreement({p: r for p, r in reviews.items() if p in ids},
                                    reviews_file.judge_scores(reviews_file.judge_file(path)))
    text = (say("verify.progress", verified=counts["verified"], total=counts["total"]) + " · "
            + " · ".join(f"{status}: {n}" for status, n in counts["by_status"].items()))
    if agreed["compared"]:
        text += say("verify.agreement_line", diff=f"{agreed['mean_abs_diff']:.2f}", n=agreed["compared"])
    flagged = {p: r for p, r in flagged.items() if p in ids}
    if flagged:
        listed = ", ".join(f"`{inert_markdown(p)}` ({inert_markdown(r)})" for p, r in list(flagged.items())[:5])
        text += say("verify.flagged", n=len(flagged), listed=listed)
    figure = None
    if agreed["compared"]:
        figure = go.Figure([
            go.Bar(name=say("verify.human"), x=list(JUDGE_DIMENSIONS),
                   y=[agreed["per_dimension"][d]["human_mean"] for d in JUDGE_DIMENSIONS]),
            go.Bar(name=say("verify.judge"), x=list(JUDGE_DIMENSIONS),
                   y=[agreed["per_dimension"][d]["judge_mean"] for d in JUDGE_DIMENSIONS]),
        ])
        figure.update_layout(barmode="group", title=say("verify.chart_title"), yaxis={"range": [0, 5.2]})
    table = pd.DataFrame(agreed["largest_disagreements"], columns=["problem_id", "mean_abs_diff"])
    return text, figure, table
