"""What the verification panel shows: the current problem with the viewer's own review, the others'
reviews (or, in blind mode, that they are hidden), the counts and queue, the agreement figures,
the list of reviewable files, bad files explained in one line, and why a review cannot be saved yet.

Score controls start unset (None), never at a middle value that would nudge reviewers towards it.

Blind mode is applied here, on the server: hidden reviews never reach the page or the API.
"""

from __future__ import annotations

from pathlib import Path

import gradio as gr
import pandas as pd
import plotly.graph_objects as go

from evalui.config import data_dir, runs_dir
from evalui.errors import InputError
from evalui.review import calibration as calibration
from evalui.review import queue as assignment
from evalui.review import report as report
from evalui.review import reviews as reviews_file
from evalui.review.names import is_unnamed_label
from evalui.review.uploads import FileProblem, is_companion, read_data_file
from evalui.stats.metrics import JUDGE_DIMENSIONS
from evalui.ui.i18n.strings import t
from evalui.ui.latex import inert_markdown, problem_markdown
from evalui.ui.space import on_space
from evalui.ui.web.access import bare_names, current_user, say

SCORE_CHOICES = [1, 2, 3, 4, 5]
UNSET = [None] * len(JUDGE_DIMENSIONS)
# The disputes' fields, in the order shown, each with its column header's catalog key.
DISPUTED_COLUMNS = {"problem_id": "verify.col.problem", "reviewers": "verify.col.reviewers",
                    "statuses_differ": "verify.col.statuses_differ", "mean_range": "verify.col.mean_range"}


def dimension_label(dimension: str) -> str:
    """A score dimension as the visitor reads it ("difficulty match"); files and the API keep the key."""
    return say(f"verify.dim.{dimension}")


def status_label(status) -> str:
    """A review status as the visitor reads it ("needs revision"); an unknown one (a hand-edited file) as it is."""
    key = f"verify.state.{status}"
    return say(key) if status in (*reviews_file.STATUSES, "disputed") else str(status)


def status_choices() -> list[tuple]:
    """The status radio's choices: the page shows the labels, the handlers receive the keys."""
    return [(t(f"verify.state.{s}"), s) for s in reviews_file.STATUSES]


def preference_choices() -> list[tuple]:
    return [(t(f"verify.pref.{p}"), p) for p in reviews_file.PREFERENCES]


def uploads_dir() -> Path:
    return data_dir() / "uploads"


def viewer_name(typed) -> str:
    """The signed-in user (Space OAuth or --auth) when there is one, so nobody reviews under another's name.

    A typed "anonymous" (or "anonymous-<n>") is no name: it would show, and unblind, the unnamed reviews.
    """
    typed = str(typed or "").strip()
    return current_user() or ("" if is_unnamed_label(typed) else typed)


def incomplete(typed_name, scores: dict, status) -> str | None:
    """Why this review cannot be saved yet, as one message in the visitor's language; None when it can."""
    typed = str(typed_name or "").strip()
    if not current_user() and is_unnamed_label(typed):
        return say("verify.msg.reserved", name=typed)
    return missing_message(name=not viewer_name(typed),
                           dimensions=[dimension_label(d) for d in reviews_file.unscored(scores)],
                                          status=not status, sign_in=on_space())


def choice_value(path) -> str:
    """A file as the page names it: relative to the data folder, never the server's own path."""
    return Path(path).resolve().relative_to(data_dir()).as_posix()


def chosen_path(value: str | None) -> str | None:
    """The file a page's (relative) or an API caller's (absolute) name stands for; problems_of checks it."""
    if not value:
        return None
    candidate = Path(value)
    return str(candidate if candidate.is_absolute() else data_dir() / candidate)


def reviewable_files(runs: Path) -> list[Path]:
    """Every file a registered benchmark writes for review (its spec's reviewable_files)."""
    from evalui.core import registry

    found: list[Path] = []
    for name in registry.names():
        spec = registry.find(name)
        if spec is not None and spec.reviewable_files is not None:
            found += spec.reviewable_files(runs)
    return list(dict.fromkeys(found))


def file_choices() -> list[tuple[str, str]]:
    """Generated files under runs/ and uploads/, without the reviews, judge and export files beside them."""
    runs = [(str(p.relative_to(runs_dir())), p) for p in reviewable_files(runs_dir())]
    folder = uploads_dir()
    uploads = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True) if folder.is_dir() else []
    return [(label, choice_value(path)) for label, path in [*runs, *((f"uploads/{p.name}", p) for p in uploads)]
            if not is_companion(str(path))]


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
    return read_data_file(resolved)


def _cell(value) -> str:
    return inert_markdown(value).replace("|", "\\|").replace("\n", " ")


def _judge_markdown(judged: dict | None) -> str:
    """The judge's scores as one row under the dimensions: four rows of a tall table would push the
    review form below the fold."""
    if not judged:
        return say("verify.no_judge")
    return "\n".join([say("verify.judge_title"), "",
                      "| " + " | ".join(dimension_label(d) for d in JUDGE_DIMENSIONS) + " |",
                      "|" + "---|" * len(JUDGE_DIMENSIONS),
                      "| " + " | ".join(f"{judged[d]:.1f}" for d in JUDGE_DIMENSIONS) + " |"])


def reviews_markdown(reviews: reviews_file.ProblemReviews | None, visible: bool) -> str:
    """Every review of one problem as a table, or a note that they are hidden."""
    if reviews is None or not reviews.reviews:
        return say("verify.no_reviews")
    if not visible:
        return say("verify.hidden", n=len(reviews.reviews))
    header = "| " + " | ".join([say("verify.reviewer_column"), *map(dimension_label, JUDGE_DIMENSIONS), say("verify.status"),
                                say("verify.comments")]) + " |"
    rows = [f"| {_cell(r['reviewer'])} | " + " | ".join(str(r["scores"][d]) for d in JUDGE_DIMENSIONS)
            + f" | {_cell(status_label(r['status']))} | {_cell(r.get('comments'))} |" for r in reviews.reviews]
    final = reviews.final
    note = say("verify.final_adjudicated" if reviews.adjudicated else "verify.final_latest",
               reviewer=inert_markdown(final["reviewer"]), status=_cell(status_label(final["status"]))) if final else ""
    if reviews.disputed:
        note = say("verify.final_disputed", statuses=", ".join(
            f"{inert_markdown(r['reviewer'])}: {_cell(status_label(r['status']))}" for r in reviews.reviews))
    unnamed = [r["reviewer"] for r in reviews.reviews if is_unnamed_label(r["reviewer"])]
    if unnamed:
        note += "\n\n" + say("verify.msg.unnamed_note", labels=", ".join(unnamed))
    return "\n".join([header, "|" + "---|" * (len(JUDGE_DIMENSIONS) + 3), *rows, "", note])


def readable_time(stamp) -> str:
    """A saved ISO timestamp as the server's local time, to the minute, with its zone ("2025-01-10
    13:00 CET"); anything that is not a timestamp (a hand-edited file) is shown as it is."""
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(str(stamp))
    except ValueError:
        return str(stamp or "")
    return moment.astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()


def render(position: dict, typed_name: str = "") -> tuple:
    """Everything the panel shows for the session's current problem, with the viewer's own saved values."""
    path, index = position.get("file"), position.get("index", 0)
    problems = problems_of(path)
    if not problems:
        return (say("verify.start"), "", *UNSET, None, "", None, "", "", gr.update(choices=[]), "")
    index = max(0, min(index, len(problems) - 1))
    problem = problems[index]
    viewer = viewer_name(typed_name)
    parsed, flagged = reviews_file.read_all(reviews_file.verifications_path(path))
    reviews = parsed.get(problem["problem_id"])
    visible = assignment.may_see_others(reviews, viewer, assignment.read_settings(path)["blind"])
    own = reviews.by(viewer) if reviews and viewer else None
    judged = report.judge_scores(report.judge_file(path)).get(problem["problem_id"])
    scores = own["scores"] if own else dict.fromkeys(JUDGE_DIMENSIONS)
    where = say("verify.where", n=index + 1, total=len(problems), problem_id=inert_markdown(problem["problem_id"]))
    if reviews and reviews.final and visible:
        final = reviews.final
        where += say("verify.reviewed_by", reviewer=inert_markdown(final.get("reviewer")),
                     when=inert_markdown(readable_time(final.get("verified_at"))),
                     status=status_label("disputed" if reviews.disputed else final["status"]))
    elif reviews and reviews.reviews:
        where += say("verify.hidden", n=len(reviews.reviews))
    elif problem["problem_id"] in flagged:
        where += say("verify.review_flagged", reason=inert_markdown(flagged[problem["problem_id"]]))
    else:
        where += say("verify.not_reviewed")
    comments = own.get("comments") if own else ""
    return (problem_markdown(problem), _judge_markdown(judged) if visible else say("verify.judge_hidden"),
            *(scores[d] for d in JUDGE_DIMENSIONS), own["status"] if own else None,
            comments if isinstance(comments, str) else "", own.get(reviews_file.PREFERENCE) if own else None,
            reference_markdown(path, problem["problem_id"]), where,
            gr.update(choices=[p["problem_id"] for p in problems], value=problem["problem_id"]),
            reviews_markdown(reviews, visible))


def reference_markdown(path: str, problem_id: str) -> str:
    """The reference problem the win-rate judge compared this one with, by id; never the judge's
    outcome, which the reviewer's own "better than the reference?" must not lean on."""
    reference = calibration.winrate_partners(calibration.winrate_file(path)).get(problem_id)
    return say("verify.reference", reference=inert_markdown(reference)) if reference else say("verify.no_reference")


def next_markdown(path: str) -> str:
    """"Review these N next": the unreviewed problems that narrow the corrected pass rate's interval
    most (evalui.review.calibration.plan_for), and that interval's expected half-width now and after them."""
    plan = calibration.plan_for(path)
    if plan is None:
        return say("verify.next_no_judge")
    ids = plan["problem_ids"]
    if not ids:
        return say("verify.next_done")
    text = say("verify.next_list", n=len(ids), listed=", ".join(inert_markdown(p) for p in ids))
    now, after = plan["half_width_now"], plan["half_width_after"]
    if after is not None and now is not None:
        text += say("verify.next_width", now=f"{now:.1%}", after=f"{after:.1%}", n=len(ids))
    elif after is not None:
        text += say("verify.next_width_undefined", after=f"{after:.1%}", n=len(ids))
    return text


def _agreement_text(figures: dict) -> str:
    alpha = figures["krippendorff_alpha"]
    text = say("verify.alpha_line", alpha=f"{alpha:.2f}" if alpha is not None else "–",
               n=figures["problems_with_several_reviews"])
    kappas = [f"{inert_markdown(k['reviewer'])} {k['kappa']:.2f}" for k in figures["kappa_vs_judge"] if k["kappa"] is not None]
    if kappas:
        text += say("verify.kappa_line", listed=", ".join(kappas))
    return text


def progress_view(position: dict, typed_name: str = "") -> tuple:
    path = position.get("file")
    problems = problems_of(path)
    if not problems:
        return "", None, None, ""
    _, parsed, flagged = report.file_reviews(path)
    finals = {p: r.final for p, r in parsed.items() if r.final}
    settings, viewer = assignment.read_settings(path), viewer_name(typed_name)
    judged = report.judge_scores(report.judge_file(path))
    counts = reviews_file.review_progress(problems, finals)
    agreed = report.final_vs_judge(finals, judged)
    text = (say("verify.progress", verified=counts["verified"], total=counts["total"]) + " · "
            + " · ".join(f"{status_label(status)}: {n}" for status, n in counts["by_status"].items()))
    if viewer:
        queue = assignment.needs_review([p["problem_id"] for p in problems], parsed, viewer, settings["overlap"])
        text += say("verify.queue_line", n=len(queue), overlap=settings["overlap"])
    figures = report.reviewer_agreement(parsed, judged)
    text += _agreement_text(figures)
    if agreed["compared"]:
        text += say("verify.agreement_line", diff=f"{agreed['mean_abs_diff']:.2f}", n=agreed["compared"])
    if flagged:
        listed = ", ".join(f"{inert_markdown(p)} ({inert_markdown(r)})" for p, r in list(flagged.items())[:5])
        text += say("verify.flagged", n=len(flagged), listed=listed)
    figure = None
    if agreed["compared"]:
        figure = go.Figure([
            go.Bar(name=say("verify.human"), x=[dimension_label(d) for d in JUDGE_DIMENSIONS],
                   y=[agreed["per_dimension"][d]["human_mean"] for d in JUDGE_DIMENSIONS]),
            go.Bar(name=say("verify.judge"), x=[dimension_label(d) for d in JUDGE_DIMENSIONS],
                   y=[agreed["per_dimension"][d]["judge_mean"] for d in JUDGE_DIMENSIONS]),
        ])
        figure.update_layout(barmode="group", title=say("verify.chart_title"), yaxis={"range": [0, 5.2]})
    # In blind mode a dispute names problems the viewer may not have reviewed yet: list only those they may see.
    disputed = [d for d in figures["most_disputed"]
                if assignment.may_see_others(parsed.get(d["problem_id"]), viewer, settings["blind"])]
    return text, figure, disputed_table(disputed), next_markdown(path)


def disputed_table(disputed: list[dict]) -> pd.DataFrame:
    """The most disputed problems under readable headers, "yes"/"no" for whether the statuses differ."""
    rows = [{**d, "statuses_differ": say("verify.pref.yes" if d["statuses_differ"] else "verify.pref.no"),
             "mean_range": round(d["mean_range"], 2)} for d in disputed]
    table = pd.DataFrame(rows, columns=list(DISPUTED_COLUMNS))
    return table.rename(columns={field: say(key) for field, key in DISPUTED_COLUMNS.items()})


def missing_message(*, name: bool, dimensions: list[str], status: bool, sign_in: bool = False) -> str | None:
    """The one refusal for a review lacking a name, some scores or a status; None when nothing is missing."""
    items = []
    if name:
        items.append(say("verify.msg.name_or_sign_in" if sign_in else "verify.msg.name"))
    if dimensions:
        items.append(say("verify.msg.scores", dimensions=say("verify.msg.list_separator").join(dimensions)))
    if status:
        items.append(say("verify.msg.status"))
    return say("verify.msg.missing", items=say("verify.msg.separator").join(items)) if items else None
