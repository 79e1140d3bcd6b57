"""The human verification panel: review generated problems one by one, several reviewers at once.

Each browser session keeps its own file and position (gr.State); the reviews live only in the
``_verifications.json`` file, which every view re-reads. Every view takes the reviewer's name (or
the signed-in user), since what it shows depends on who asks: their own review, their queue, and
in blind mode whether the others' reviews are shown. A refusal or a bad file is a message in
``#verify-message`` (and a warning); the panel's other outputs keep their values.

A save needs a reviewer (the typed name or the signed-in user), a score for every dimension and a
status; the score radios start unset. One message names everything still missing.
"""

from __future__ import annotations

import html
from pathlib import Path

import gradio as gr

from evalui.review import export as hub_export
from evalui.review import queue as assignment
from evalui.review import report as report
from evalui.review import reviews as reviews_file
from evalui.review import uploads as uploads
from evalui.stats.metrics import JUDGE_DIMENSIONS
from evalui.ui.i18n.strings import t
from evalui.ui.latex import LATEX_DELIMITERS, inert_markdown
from evalui.ui.refresh import files_refresh_s, reviews_refresh_s
from evalui.ui.review import adjudicate as verify_adjudicate
from evalui.ui.review import style as verify_style
from evalui.ui.review.view import (
    SCORE_CHOICES,
    choice_value,
    chosen_path,
    explain,
    file_choices,
    incomplete,
    preference_choices,
    problems_of,
    progress_view,
    render,
    status_choices,
    uploads_dir,
    viewer_name,
)
from evalui.ui.web.access import guarded, require_access, say

# Alt+→ next, Alt+← previous, Alt+U next unverified, Alt+S save: clicks on the panel's buttons.
KEYBOARD_SHORTCUTS_JS = """
<script>
document.addEventListener("keydown", (event) => {
  if (!event.altKey) return;
  const targets = {ArrowRight: "verify-next", ArrowLeft: "verify-prev", u: "verify-next-unverified",
                   U: "verify-next-unverified", s: "verify-save", S: "verify-save"};
  const id = targets[event.key];
  const button = id && document.getElementById(id);
  if (button) { event.preventDefault(); button.click(); }
});
</script>
"""


def listen(trigger, handler, inputs, outputs, message=None, **options):
    """Wire ``handler`` so that refusals and bad files become a message, never red Error badges."""
    note = outputs.index(message) if message is not None else None
    wrapped = guarded(len(outputs), note, quiet=message is None, explain=explain)(handler)
    return trigger(wrapped, inputs, outputs, **options)


def build(demo) -> gr.Dropdown:
    with gr.Column(elem_id="verify-panel"):
        data_file = _panel(demo)
    verify_style.build()
    return data_file


def _panel(demo) -> gr.Dropdown:
    position = gr.State({"file": None, "index": 0})
    # An upload's note, shown by the file opening that the upload's new dropdown value triggers.
    pending = gr.State("")
    with gr.Row(elem_id="verify-top", equal_height=True):
        # Custom values: an API caller may name a file by its absolute path (problems_of checks where it is).
        data_file = gr.Dropdown(choices=[], label=t("verify.file"), elem_id="verify-file", scale=3, allow_custom_value=True)
        # An initial value makes the name optional for API callers (gradio_client) that only look; saving refuses it.
        reviewer = gr.Textbox("", label=t("verify.reviewer"), placeholder=t("verify.reviewer_required"),
                              elem_id="verify-reviewer", scale=3, max_lines=1)
        goto = gr.Dropdown(choices=[], label=t("verify.goto"), elem_id="verify-goto", scale=1, min_width=130)
        refresh = gr.Button(t("run.refresh"), scale=0, min_width=90, size="md", elem_id="verify-refresh")
        # A button, not a drop zone: the zone was as tall as a third of the form. The column holds
        # the button's file input too (a sibling of the button), so "#verify-upload" names both.
        with gr.Column(elem_id="verify-upload", scale=0, min_width=150):
            upload = gr.UploadButton(t("verify.upload_file"), file_types=[".json"], elem_id="verify-upload-button",
                                     size="md")
    # Reading on the left, scoring on the right: stacked, the form fell below the fold of a 900 px screen.
    with gr.Row(elem_id="verify-form"):
        with gr.Column(scale=5, elem_id="verify-reading"):
            message = gr.Markdown(elem_id="verify-message")
            where = gr.Markdown(elem_id="verify-where")
            shown = gr.Markdown(latex_delimiters=LATEX_DELIMITERS, elem_id="verify-problem", max_height=300)
            judged = gr.Markdown(elem_id="verify-judge")
            others = gr.Markdown(label=t("verify.others"), elem_id="verify-others", max_height=170)
        with gr.Column(scale=4, elem_id="verify-scoring"):
            score_radios = [gr.Radio(SCORE_CHOICES, value=None, label=t(f"verify.dim.{d}"), elem_id=f"verify-{d}",
                                     elem_classes="verify-inline") for d in JUDGE_DIMENSIONS]
            status = gr.Radio(status_choices(), label=t("verify.status"), elem_id="verify-status",
                              elem_classes="verify-inline")
            comments = gr.Textbox(label=t("verify.comments"), lines=1, max_lines=6, elem_id="verify-comments")
            # Optional, and asked blind: the win-rate judge's outcome for the problem is never shown here.
            better = gr.Radio(preference_choices(), value=None, label=t("verify.better"), elem_id="verify-better")
            reference = gr.Markdown(elem_id="verify-reference")
            with gr.Row(elem_id="verify-nav", equal_height=True):
                previous = gr.Button(t("verify.previous"), elem_id="verify-prev", size="md", min_width=90)
                following = gr.Button(t("verify.next"), elem_id="verify-next", size="md", min_width=90)
                unverified = gr.Button(t("verify.next_unverified"), elem_id="verify-next-unverified", size="md",
                                       min_width=120)
            save = gr.Button(t("verify.save"), variant="primary", elem_id="verify-save", size="md")
    gr.Markdown(t("verify.keys"))
    progress = gr.Markdown(elem_id="verify-progress")
    review_next = gr.Markdown(label=t("verify.next_title"), elem_id="verify-review-next")
    with gr.Row():
        agreement_plot = gr.Plot(label=t("verify.agreement"), elem_id="verify-agreement")
        disagreements = gr.Dataframe(label=t("verify.disagreements"), interactive=False, elem_id="verify-disagreements")
    with gr.Accordion(t("verify.assignment"), open=False):
        with gr.Row():
            overlap = gr.Number(value=1, minimum=1, maximum=assignment.MAX_OVERLAP, precision=0,
                                label=t("verify.overlap"), elem_id="verify-overlap")
            blind = gr.Checkbox(label=t("verify.blind"), elem_id="verify-blind")
            save_settings = gr.Button(t("verify.save_settings"), elem_id="verify-save-settings")
    with gr.Row():
        export = gr.Button(t("verify.export"), elem_id="verify-export")
        exported = gr.File(label=t("verify.exported"), elem_id="verify-exported")
    with gr.Accordion(t("verify.hub"), open=False):
        with gr.Row():
            hub_repo = gr.Textbox(label=t("verify.hub_repo"), elem_id="verify-hub-repo")
            hub_public = gr.Checkbox(label=t("verify.hub_public"), elem_id="verify-hub-public")
            hub_push = gr.Button(t("verify.hub_push"), elem_id="verify-hub-push")
    adjudication = verify_adjudicate.build(position, reviewer, message, listen)

    view = [shown, judged, *score_radios, status, comments, better, reference, where, goto, others]
    # Where a move's outputs ([message, position, *view]) hold what the reviewer enters.
    own_inputs = {2 + i for i, c in enumerate(view) if any(c is o for o in (*score_radios, status, comments, better))}
    summary = [progress, agreement_plot, disagreements, review_next]

    def settings_of(path):
        settings = assignment.read_settings(path) if path else assignment.DEFAULT_SETTINGS
        return settings["overlap"], settings["blind"]

    def open_file(path, note, name=""):
        path = chosen_path(path)
        state = {"file": path, "index": 0}
        return (note or "", "", state, *render(state, name), *progress_view(state, name), *settings_of(path))

    def store_upload(upload_value, name=""):
        require_access("upload files")
        if upload_value is None:
            return gr.skip()
        source = Path(upload_value if isinstance(upload_value, str) else upload_value.name)
        target = uploads.store_upload(source, source.name, uploads_dir())
        asked = uploads.upload_name(source.name)
        note = (say("verify.uploaded", name=inert_markdown(target.name)) if target.name == asked
                else say("verify.renamed", original=inert_markdown(asked), name=inert_markdown(target.name)))
        state = {"file": str(target), "index": 0}
        return (note, note, gr.update(choices=file_choices(), value=choice_value(target)), state, *render(state, name),
                *progress_view(state, name), *settings_of(str(target)))

    def move(state, step, name=""):
        state = {**state, "index": max(0, state.get("index", 0) + step)}
        problems = problems_of(state.get("file"))
        if problems:
            state["index"] = min(state["index"], len(problems) - 1)
        return ("", state, *render(state, name))

    def next_in_queue(state, name=""):
        """The next problem, after this one and wrapping round, that needs this reviewer's review."""
        problems = problems_of(state.get("file"))
        if not problems:
            return move(state, 0, name)
        _, parsed, _ = report.file_reviews(state["file"])
        queue = set(assignment.needs_review([p["problem_id"] for p in problems], parsed, viewer_name(name),
                                            assignment.read_settings(state["file"])["overlap"]))
        here = state.get("index", 0)
        order = list(range(here + 1, len(problems))) + list(range(0, here + 1))
        target = next((i for i in order if problems[i]["problem_id"] in queue), None)
        if target is None:
            return (say("verify.queue_done"), state, *render(state, name))
        return move({**state, "index": target}, 0, name)

    def go_to(state, problem_id, name=""):
        ids = [p["problem_id"] for p in problems_of(state.get("file"))]
        shown_already = problem_id in ids and ids.index(problem_id) == state.get("index", 0)
        drawn = move({**state, "index": ids.index(problem_id) if problem_id in ids else state.get("index", 0)}, 0, name)
        if not shown_already:
            return drawn
        # The browser may send one pick twice: drawn again, the problem kept its header and
        # reviews but lost the scores clicked since the first.
        return tuple(gr.skip() if i in own_inputs else value for i, value in enumerate(drawn))

    def save_current(state, name, correctness, clarity, difficulty_match, completeness, status_value, comment,
                     better_than_reference=None):
        """The default None makes the comparison with the reference optional for API callers too."""
        require_access("save reviews")
        problems = problems_of(state.get("file"))
        if not problems:
            raise gr.Error(say("verify.open_first"))
        scores = dict(zip(JUDGE_DIMENSIONS, (correctness, clarity, difficulty_match, completeness)))
        refusal = incomplete(name, scores, status_value)
        if refusal:
            raise gr.Error(refusal)
        problem = problems[min(state.get("index", 0), len(problems) - 1)]
        assignment.record_review(state["file"], problem["problem_id"], scores, status_value, comment, viewer_name(name),
                                 better_than_reference=better_than_reference or None)
        gr.Info(html.escape(say("verify.saved", problem_id=problem["problem_id"])))
        done = say("verify.saved", problem_id=inert_markdown(problem["problem_id"]))
        return (done, state, *render(state, name), *progress_view(state, name))

    def change_settings(state, overlap_value, blind_value, name=""):
        require_access("change the assignment")
        if not problems_of(state.get("file")):
            raise gr.Error(say("verify.open_first"))
        settings = assignment.save_settings(state["file"], overlap_value, bool(blind_value))
        note = say("verify.settings_saved", overlap=settings["overlap"],
                   blind=say("verify.on" if settings["blind"] else "verify.off"))
        return (note, *render(state, name), *progress_view(state, name))

    def push_to_hub(state, repo, public):
        require_access("push to the Hub")
        if not problems_of(state.get("file")):
            raise gr.Error(say("verify.open_first"))
        try:
            pushed = hub_export.push_approved(state["file"], repo, private=not public)
        except RuntimeError as exc:  # the Hub refused or cannot be reached: the token is already cut out
            raise gr.Error(str(exc)) from None
        return say("verify.pushed", n=pushed["rows"], repo=inert_markdown(pushed["repo_id"]))

    def export_file(state):
        require_access("export approved problems")
        problems = problems_of(state.get("file"))
        if not problems:
            raise gr.Error(say("verify.open_first"))
        target = reviews_file.export_approved(state["file"], problems)
        count = len(uploads.read_json(target))
        return say("verify.exported_note", n=count, name=target.name), str(target)

    def list_files():
        return gr.update(choices=file_choices())

    def others_now(state, name=""):
        """What other reviewers changed on the open problem since it was shown (the header, their
        reviews, the judge once visible) and the counts; the reviewer's own inputs are left alone."""
        if not problems_of(state.get("file")):
            return gr.skip(), gr.skip(), gr.skip(), *(gr.skip() for _ in summary)
        shown_now = render(state, name)
        return shown_now[-3], shown_now[-1], shown_now[1], *progress_view(state, name)

    def files_now(known):
        """The file list, sent only when a file was added or removed (a run just wrote one)."""
        found = [value for _, value in file_choices()]
        return (gr.skip(), known) if found == known else (gr.update(choices=file_choices()), found)

    settings = [overlap, blind]
    listen(refresh.click, list_files, None, [data_file], api_name="verify_files")
    opening = listen(data_file.change, open_file, [data_file, pending, reviewer],
           [message, pending, position, *view, *summary, *settings], message, api_name="verify_open")
    listen(upload.upload, store_upload, [upload, reviewer],
           [message, pending, data_file, position, *view, *summary, *settings], message, api_name="verify_upload")
    saves = []
    # Moving also refreshes the counts, which other reviewers may have changed. The name comes last,
    # so API callers that leave it out get the default.
    for trigger, handler, inputs, name in ((previous.click, lambda s, n="": move(s, -1, n), [position], "verify_previous"),
                                           (following.click, lambda s, n="": move(s, 1, n), [position], "verify_next"),
                                           (unverified.click, next_in_queue, [position], "verify_next_unverified"),
                                           (goto.input, go_to, [position, goto], "verify_goto"),
                                           (reviewer.submit, lambda s, n="": move(s, 0, n), [position], "verify_as")):
        event = listen(trigger, handler, [*inputs, reviewer], [message, position, *view], message, api_name=name)
        listen(event.then, progress_view, [position, reviewer], summary, api_visibility="private")
        if name == "verify_as":  # in blind mode the name decides which disputes may be seen
            saves.append(event)
    # The comparison with the reference comes last: API callers that leave it out answer nothing.
    saves.append(listen(save.click, save_current, [position, reviewer, *score_radios, status, comments, better],
                        [message, position, *view, *summary], message, api_name="verify_save",
                        concurrency_limit=None))
    saves.append(listen(save_settings.click, change_settings, [position, overlap, blind, reviewer],
                        [message, *view, *summary], message, api_name="verify_settings"))
    listen(export.click, export_file, [position], [message, exported], message, api_name="verify_export_approved")
    listen(hub_push.click, push_to_hub, [position, hub_repo, hub_public], [message], message,
           api_name="verify_push_hub")
    listen(demo.load, list_files, None, [data_file], api_visibility="private")
    # Nobody has to navigate to see another reviewer's save, or press Refresh for a new file.
    known_files = gr.State([])
    ticker = gr.Timer(reviews_refresh_s())
    listen(ticker.tick, others_now, [position, reviewer], [where, others, judged, *summary], api_visibility="private",
           show_progress="hidden")
    # Slower: listing files walks the runs folder.
    gr.Timer(files_refresh_s()).tick(files_now, [known_files], [data_file, known_files], api_visibility="private",
                                     show_progress="hidden")
    # The disputes follow the file: listed on opening, and again after every save that may start or
    # end one; an adjudication also updates the counts and the open problem's reviews.
    disputes = [adjudication.disputed, *adjudication.form]
    listen(opening.then, verify_adjudicate.opened, [position, reviewer], disputes, api_visibility="private")
    for event in saves:
        listen(event.then, verify_adjudicate.after_save, [position, adjudication.disputed, reviewer], disputes,
               api_visibility="private")
    listen(adjudication.settled.then, others_now, [position, reviewer], [where, others, judged, *summary],
           api_visibility="private")
    return data_file
