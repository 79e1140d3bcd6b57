"""The human verification panel: review generated problems one by one, several reviewers at once.

Each browser session keeps its own file and position (gr.State); the reviews live only in the
``_verifications.json`` file, which every view re-reads. A refusal or a bad file is a message in
``#verify-message`` (and a warning); the panel's other outputs keep their values.
"""

from __future__ import annotations

import html
from pathlib import Path

import gradio as gr

from evalui import verification as reviews_file
from evalui import verification_input as uploads
from evalui.scoring.metrics import JUDGE_DIMENSIONS
from evalui.ui.access import guarded, require_access, say
from evalui.ui.latex import LATEX_DELIMITERS, inert_markdown
from evalui.ui.strings import t
from evalui.ui.verify_view import DEFAULT_SCORE, explain, file_choices, problems_of, progress_view, render, uploads_dir

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


def _listen(trigger, handler, inputs, outputs, message=None, **options):
    """Wire ``handler`` so that refusals and bad files become a message, never red Error badges."""
    note = outputs.index(message) if message is not None else None
    wrapped = guarded(len(outputs), note, quiet=message is None, explain=explain)(handler)
    return trigger(wrapped, inputs, outputs, **options)


def build(demo) -> gr.Dropdown:
    position = gr.State({"file": None, "index": 0})
    # An upload's note, shown by the file opening that the upload's new dropdown value triggers.
    pending = gr.State("")
    with gr.Row():
        data_file = gr.Dropdown(choices=[], label=t("verify.file"), elem_id="verify-file", scale=4)
        refresh = gr.Button(t("run.refresh"), scale=1, elem_id="verify-refresh")
        upload = gr.File(label=t("verify.upload"), file_types=[".json"], elem_id="verify-upload", scale=2)
    reviewer = gr.Textbox(label=t("verify.reviewer"), placeholder=t("verify.reviewer_hint"), elem_id="verify-reviewer")
    message = gr.Markdown(elem_id="verify-message")
    where = gr.Markdown(elem_id="verify-where")
    with gr.Row():
        with gr.Column(scale=3):
            shown = gr.Markdown(latex_delimiters=LATEX_DELIMITERS, elem_id="verify-problem")
        with gr.Column(scale=1):
            judged = gr.Markdown(elem_id="verify-judge")
    with gr.Row():
        sliders = [gr.Slider(1, 5, value=DEFAULT_SCORE, step=1, label=d, elem_id=f"verify-{d}") for d in JUDGE_DIMENSIONS]
    with gr.Row():
        status = gr.Radio(list(reviews_file.STATUSES), label=t("verify.status"), elem_id="verify-status")
        comments = gr.Textbox(label=t("verify.comments"), lines=2, elem_id="verify-comments")
    with gr.Row():
        previous = gr.Button(t("verify.previous"), elem_id="verify-prev")
        following = gr.Button(t("verify.next"), elem_id="verify-next")
        unverified = gr.Button(t("verify.next_unverified"), elem_id="verify-next-unverified")
        goto = gr.Dropdown(choices=[], label=t("verify.goto"), elem_id="verify-goto")
        save = gr.Button(t("verify.save"), variant="primary", elem_id="verify-save")
    gr.Markdown(t("verify.keys"))
    progress = gr.Markdown(elem_id="verify-progress")
    with gr.Row():
        agreement_plot = gr.Plot(label=t("verify.agreement"), elem_id="verify-agreement")
        disagreements = gr.Dataframe(label=t("verify.disagreements"), interactive=False, elem_id="verify-disagreements")
    with gr.Row():
        export = gr.Button(t("verify.export"), elem_id="verify-export")
        exported = gr.File(label=t("verify.exported"), elem_id="verify-exported")

    view = [shown, judged, *sliders, status, comments, where, goto]
    summary = [progress, agreement_plot, disagreements]

    def open_file(path, note):
        state = {"file": path, "index": 0}
        return (note or "", "", state, *render(state), *progress_view(state))

    def store_upload(upload_value):
        require_access("upload files")
        if upload_value is None:
            return gr.skip()
        source = Path(upload_value if isinstance(upload_value, str) else upload_value.name)
        target = uploads.store_upload(source, source.name, uploads_dir())
        asked = uploads.upload_name(source.name)
        note = (say("verify.uploaded", name=target.name) if target.name == asked
                else say("verify.renamed", original=asked, name=target.name))
        state = {"file": str(target), "index": 0}
        return (note, note, gr.update(choices=file_choices(), value=str(target)), state, *render(state),
                *progress_view(state))

    def move(state, step):
        state = {**state, "index": max(0, state.get("index", 0) + step)}
        problems = problems_of(state.get("file"))
        if problems:
            state["index"] = min(state["index"], len(problems) - 1)
        return ("", state, *render(state))

    def next_unverified(state):
        problems = problems_of(state.get("file"))
        saved = reviews_file.read_verifications(reviews_file.verifications_path(state["file"])) if problems else {}
        here = state.get("index", 0)
        order = list(range(here + 1, len(problems))) + list(range(0, here + 1))
        target = next((i for i in order if problems[i]["problem_id"] not in saved), None)
        if target is None:
            return (say("verify.all_reviewed"), state, *render(state))
        return move({**state, "index": target}, 0)

    def go_to(state, problem_id):
        ids = [p["problem_id"] for p in problems_of(state.get("file"))]
        return move({**state, "index": ids.index(problem_id) if problem_id in ids else state.get("index", 0)}, 0)

    def save_current(state, name, *values):
        require_access("save reviews")
        *scores, status_value, comment = values
        problems = problems_of(state.get("file"))
        if not problems:
            raise gr.Error(say("verify.open_first"))
        if not status_value:
            raise gr.Error(say("verify.choose_status"))
        problem = problems[min(state.get("index", 0), len(problems) - 1)]
        review = reviews_file.make_review(problem["problem_id"], dict(zip(JUDGE_DIMENSIONS, scores)),
                                          status_value, comment, name)
        reviews_file.save_review(state["file"], review)
        gr.Info(html.escape(say("verify.saved", problem_id=problem["problem_id"])))
        done = say("verify.saved", problem_id=inert_markdown(problem["problem_id"]))
        return (done, state, *render(state), *progress_view(state))

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

    _listen(refresh.click, list_files, None, [data_file], api_name="verify_files")
    _listen(data_file.change, open_file, [data_file, pending], [message, pending, position, *view, *summary], message,
            api_name="verify_open")
    _listen(upload.upload, store_upload, [upload], [message, pending, data_file, position, *view, *summary], message,
            api_name="verify_upload")
    # Moving also refreshes the counts, which other reviewers may have changed.
    for trigger, handler, inputs, name in ((previous.click, lambda s: move(s, -1), [position], "verify_previous"),
                                           (following.click, lambda s: move(s, 1), [position], "verify_next"),
                                           (unverified.click, next_unverified, [position], "verify_next_unverified"),
                                           (goto.input, go_to, [position, goto], "verify_goto")):
        event = _listen(trigger, handler, inputs, [message, position, *view], message, api_name=name)
        _listen(event.then, progress_view, [position], summary, api_visibility="private")
    _listen(save.click, save_current, [position, reviewer, *sliders, status, comments],
            [message, position, *view, *summary], message, api_name="verify_save", concurrency_limit=None)
    _listen(export.click, export_file, [position], [message, exported], message, api_name="verify_export_approved")
    _listen(demo.load, list_files, None, [data_file], api_visibility="private")
    return data_file
