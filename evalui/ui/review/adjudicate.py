"""The adjudication part of the verification panel: the disputed problems of the open file, every
review of the chosen one, and the adjudicator's final review, which becomes the entry's seed fields.

Who may adjudicate: everyone allowed to review, or only the names in EVALUI_ADJUDICATORS. In blind
mode only listed adjudicators, or reviewers who have reviewed a problem, see its reviews here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from evalui.review import queue as assignment
from evalui.review import report as report
from evalui.review import reviews as reviews_file
from evalui.stats.metrics import JUDGE_DIMENSIONS
from evalui.ui.i18n.strings import t
from evalui.ui.latex import inert_markdown
from evalui.ui.review.view import (
    SCORE_CHOICES,
    UNSET,
    incomplete,
    problems_of,
    reviews_markdown,
    status_choices,
    viewer_name,
)
from evalui.ui.web.access import require_access, say


def _visible_disputes(path: str, viewer: str) -> tuple[list[str], dict]:
    _, parsed, _ = report.file_reviews(path)
    blind = assignment.read_settings(path)["blind"]
    disputed = [d["problem_id"] for d in report.reviewer_agreement(parsed, {}, top=1000)["most_disputed"]
                if assignment.may_see_others(parsed.get(d["problem_id"]), viewer, blind)]
    return disputed, parsed


def list_disputes(state, name=""):
    if not problems_of(state.get("file")):
        raise gr.Error(say("verify.open_first"))
    disputed, _ = _visible_disputes(state["file"], viewer_name(name))
    note = "" if disputed else say("verify.no_disputes")
    first = disputed[0] if disputed else None
    return note, gr.update(choices=disputed, value=first), *_form(state, first, name), first


def opened(state, name=""):
    """The disputes of a file just opened, the first one chosen and its reviews shown, as Refresh
    does: the progress line counts the disputes, so the list must not wait for a click."""
    if not problems_of(state.get("file")):
        return gr.update(choices=[], value=None), *_form(state, None, name), None
    disputed, _ = _visible_disputes(state["file"], viewer_name(name))
    first = disputed[0] if disputed else None
    return gr.update(choices=disputed, value=first), *_form(state, first, name), first


def after_save(state, chosen, name=""):
    """The disputes once a review or the assignment was saved in the panel: the chosen problem stays,
    its reviews re-read and the adjudicator's inputs left as they are, while it is still disputed;
    otherwise the list starts again from its first problem."""
    if not problems_of(state.get("file")):
        return gr.skip(), *(gr.skip() for _ in range(len(JUDGE_DIMENSIONS) + 4))
    disputed, _ = _visible_disputes(state["file"], viewer_name(name))
    if chosen and chosen in disputed:
        return (gr.update(choices=disputed, value=chosen), _form(state, chosen, name)[0],
                *(gr.skip() for _ in range(len(JUDGE_DIMENSIONS) + 2)), chosen)
    return opened(state, name)


def show(state, problem_id, name="", shown=None):
    """The chosen problem's reviews, and the final review's values (when it may be seen) as the
    starting point. A pick of the problem the form already shows (``shown``: a browser may send one
    pick twice) redraws its reviews and keeps what the adjudicator entered."""
    form = _form(state, problem_id, name)
    if problem_id and problem_id == shown:
        form = (form[0], *(gr.skip() for _ in form[1:]))
    return ("", *form, problem_id or None)


def _form(state, problem_id, name=""):
    """(reviews, the four scores, status, comments) of the form for ``problem_id``."""
    if not problems_of(state.get("file")) or not problem_id:
        return ("", *UNSET, None, "")
    parsed, _ = reviews_file.read_all(reviews_file.verifications_path(state["file"]))
    reviews = parsed.get(problem_id)
    visible = assignment.may_see_others(reviews, viewer_name(name), assignment.read_settings(state["file"])["blind"])
    final = reviews.final if reviews and visible else None
    scores = final["scores"] if final else dict.fromkeys(JUDGE_DIMENSIONS)
    return (reviews_markdown(reviews, visible), *(scores[d] for d in JUDGE_DIMENSIONS),
            final["status"] if final else None, "")


def settle(state, problem_id, name, *values):
    require_access("adjudicate")
    *scores, status_value, comment = values
    if not problems_of(state.get("file")):
        raise gr.Error(say("verify.open_first"))
    scores = dict(zip(JUDGE_DIMENSIONS, scores))
    refusal = incomplete(name, scores, status_value)
    if refusal:
        raise gr.Error(refusal)
    adjudicator = viewer_name(name)
    assignment.record_review(state["file"], problem_id or "", scores, status_value, comment, adjudicator, final=True)
    note = say("verify.adjudicated", problem_id=inert_markdown(problem_id), name=inert_markdown(adjudicator))
    disputed, parsed = _visible_disputes(state["file"], adjudicator)
    return note, gr.update(choices=disputed, value=None), reviews_markdown(parsed.get(problem_id), True), None


@dataclass
class Adjudication:
    """What the panel chains to: the list, the form it fills (reviews table first), the save's event."""

    disputed: gr.Dropdown
    form: list  # then the problem the form shows (a gr.State), which every update of the form sets
    settled: Any  # the save's Gradio event (Dependency), which the panel chains ``.then`` to


def build(position, reviewer, message, listen) -> Adjudication:
    with gr.Accordion(t("verify.adjudication"), open=False, elem_id="verify-adjudication"):
        with gr.Row():
            disputed = gr.Dropdown(choices=[], label=t("verify.disputed"), elem_id="verify-disputed", scale=4)
            refresh = gr.Button(t("run.refresh"), elem_id="verify-disputed-refresh", scale=1)
        reviews = gr.Markdown(elem_id="verify-adjudicate-reviews")
        # The scores stacked, each on one line, beside the status and comments, like the review form.
        with gr.Row():
            with gr.Column():
                score_radios = [gr.Radio(SCORE_CHOICES, value=None, label=t(f"verify.dim.{d}"),
                                         elem_id=f"verify-adjudicate-{d}", elem_classes="verify-inline")
                                for d in JUDGE_DIMENSIONS]
            with gr.Column():
                status = gr.Radio(status_choices(), label=t("verify.status"), elem_id="verify-adjudicate-status",
                                  elem_classes="verify-inline")
                comments = gr.Textbox(label=t("verify.comments"), lines=2, elem_id="verify-adjudicate-comments")
                save = gr.Button(t("verify.adjudicate_save"), variant="primary", elem_id="verify-adjudicate-save")
    shown = gr.State(None)  # the problem the form shows, so that a repeated pick keeps the inputs
    form = [reviews, *score_radios, status, comments, shown]
    listen(refresh.click, list_disputes, [position, reviewer], [message, disputed, *form], message,
           api_name="verify_disputed")
    listen(disputed.input, show, [position, disputed, reviewer, shown], [message, *form], message,
           api_name="verify_adjudicate_show")
    settled = listen(save.click, settle, [position, disputed, reviewer, *score_radios, status, comments],
                     [message, disputed, reviews, shown], message, api_name="verify_adjudicate")
    return Adjudication(disputed, form, settled)
