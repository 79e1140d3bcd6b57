"""The human verification panel: review generated problems one by one, several reviewers at once.

Each browser session keeps its own file and position (gr.State); the reviews live only in the
``_verifications.json`` file, which every view re-reads.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import gradio as gr
import pandas as pd
import plotly.graph_objects as go

from evalui import verification as reviews_file
from evalui.benchmarks.aime.run import read_problems
from evalui.config import data_dir, runs_dir
from evalui.errors import InputError
from evalui.scoring.metrics import JUDGE_DIMENSIONS
from evalui.ui.access import require_access
from evalui.ui.aime_tabs import file_choices
from evalui.ui.latex import LATEX_DELIMITERS, inert_markdown, problem_markdown
from evalui.ui.strings import t

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
DEFAULT_SCORE = 3


def _allowed(path: Path) -> bool:
    resolved = path.resolve()
    return any(root.resolve() in resolved.parents for root in (runs_dir(), data_dir()))


def _problems(path: str | None) -> list[dict]:
    if not path:
        return []
    if not _allowed(Path(path)):
        raise gr.Error("Files are opened from the data folder only.")
    try:
        return read_problems(path)
    except InputError as exc:
        raise gr.Error(str(exc)) from None


def _reviews(path: str) -> dict:
    try:
        return reviews_file.read_verifications(reviews_file.verifications_path(path))
    except reviews_file.CorruptVerificationFile as exc:
        raise gr.Error(str(exc), duration=None) from None


def _judge_markdown(judged: dict | None) -> str:
    if not judged:
        return "_No LLM-judge scores for this problem._"
    rows = "\n".join(f"| {d} | {judged[d]:.1f} |" for d in JUDGE_DIMENSIONS)
    return f"**LLM judge**\n\n| dimension | score |\n|---|---|\n{rows}"


def render(position: dict):
    """Everything the panel shows for the session's current problem, with that problem's saved values."""
    path, index = position.get("file"), position.get("index", 0)
    problems = _problems(path)
    if not problems:
        return ("_Open a generated file to start._", "", *([DEFAULT_SCORE] * 4), None, "", "", gr.update(choices=[]))
    index = max(0, min(index, len(problems) - 1))
    problem = problems[index]
    saved = _reviews(path).get(problem["problem_id"])
    judged = reviews_file.judge_scores(Path(path).with_name(f"{Path(path).stem}_judge.json")).get(problem["problem_id"])
    scores = saved["scores"] if saved else {d: DEFAULT_SCORE for d in JUDGE_DIMENSIONS}
    where = f"Problem {index + 1} of {len(problems)} · `{inert_markdown(problem['problem_id'])}` · "
    where += (f"reviewed by {inert_markdown(saved['reviewer'])} at {saved['verified_at']} ({saved['status']})"
              if saved else "**not reviewed yet**")
    return (problem_markdown(problem), _judge_markdown(judged), *(scores[d] for d in JUDGE_DIMENSIONS),
            saved["status"] if saved else None, saved["comments"] if saved else "", where,
            gr.update(choices=[p["problem_id"] for p in problems], value=problem["problem_id"]))


def progress_view(position: dict):
    path = position.get("file")
    problems = _problems(path)
    if not problems:
        return "", None, None
    saved = _reviews(path)
    counts = reviews_file.review_progress(problems, saved)
    judged = reviews_file.judge_scores(Path(path).with_name(f"{Path(path).stem}_judge.json"))
    agreed = reviews_file.agreement(saved, judged)
    text = (f"**Verified {counts['verified']} of {counts['total']}** · "
            + " · ".join(f"{status}: {n}" for status, n in counts["by_status"].items()))
    if agreed["compared"]:
        text += f" · human vs LLM judge: mean absolute difference {agreed['mean_abs_diff']:.2f} over {agreed['compared']} problems"
    figure = None
    if agreed["compared"]:
        figure = go.Figure([
            go.Bar(name="human", x=list(JUDGE_DIMENSIONS), y=[agreed["per_dimension"][d]["human_mean"] for d in JUDGE_DIMENSIONS]),
            go.Bar(name="LLM judge", x=list(JUDGE_DIMENSIONS), y=[agreed["per_dimension"][d]["judge_mean"] for d in JUDGE_DIMENSIONS]),
        ])
        figure.update_layout(barmode="group", title="Human and LLM-judge scores per dimension", yaxis={"range": [0, 5.2]})
    table = pd.DataFrame(agreed["largest_disagreements"], columns=["problem_id", "mean_abs_diff"])
    return text, figure, table


def build(demo) -> gr.Dropdown:
    position = gr.State({"file": None, "index": 0})
    with gr.Row():
        data_file = gr.Dropdown(choices=[], label=t("aime.file"), elem_id="verify-file", scale=4)
        refresh = gr.Button(t("run.refresh"), scale=1)
        upload = gr.File(label=t("verify.upload"), file_types=[".json"], elem_id="verify-upload", scale=2)
    reviewer = gr.Textbox(label=t("verify.reviewer"), placeholder=t("verify.reviewer_hint"), elem_id="verify-reviewer")
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
        disagreements = gr.Dataframe(label=t("verify.disagreements"), interactive=False)
    with gr.Row():
        export = gr.Button(t("verify.export"), elem_id="verify-export")
        exported = gr.File(label=t("verify.exported"), elem_id="verify-exported")

    view = [shown, judged, *sliders, status, comments, where, goto]
    summary = [progress, agreement_plot, disagreements]

    def open_file(path):
        state = {"file": path, "index": 0}
        return (state, *render(state), *progress_view(state))

    def store_upload(upload_value):
        require_access("upload files")
        if upload_value is None:
            return gr.skip(), *([gr.skip()] * (len(view) + len(summary) + 1))
        source = Path(upload_value if isinstance(upload_value, str) else upload_value.name)
        name = re.sub(r"[^A-Za-z0-9._-]", "_", source.name)[:100] or "upload.json"
        target_dir = data_dir() / "uploads"
        target_dir.mkdir(parents=True, exist_ok=True)
        target = target_dir / name  # the sanitised name cannot leave the uploads folder
        shutil.copyfile(source, target)
        _problems(str(target))  # reject a malformed file at once
        return (gr.update(choices=[*file_choices(), (f"uploads/{name}", str(target))], value=str(target)),
                *open_file(str(target)))

    def move(state, step):
        state = {**state, "index": max(0, state.get("index", 0) + step)}
        problems = _problems(state.get("file"))
        if problems:
            state["index"] = min(state["index"], len(problems) - 1)
        return (state, *render(state))

    def next_unverified(state):
        problems = _problems(state.get("file"))
        saved = _reviews(state["file"]) if problems else {}
        order = list(range(state.get("index", 0) + 1, len(problems))) + list(range(0, state.get("index", 0) + 1))
        target = next((i for i in order if problems[i]["problem_id"] not in saved), None)
        if target is None:
            gr.Info("Every problem has a review.")
            return (state, *render(state))
        return move({**state, "index": target}, 0)

    def go_to(state, problem_id):
        ids = [p["problem_id"] for p in _problems(state.get("file"))]
        return move({**state, "index": ids.index(problem_id) if problem_id in ids else state.get("index", 0)}, 0)

    def save_current(state, name, *values):
        require_access("save reviews")
        *scores, status_value, comment = values
        problems = _problems(state.get("file"))
        if not problems:
            raise gr.Error("Open a generated file first.")
        if not status_value:
            raise gr.Error("Choose a status before saving.")
        problem = problems[state.get("index", 0)]
        try:
            review = reviews_file.make_review(problem["problem_id"], dict(zip(JUDGE_DIMENSIONS, scores)),
                                              status_value, comment, name)
            reviews_file.save_review(state["file"], review)
        except InputError as exc:
            raise gr.Error(str(exc), duration=None) from None
        gr.Info(f"Saved {problem['problem_id']}.")
        return (state, *render(state), *progress_view(state))

    def export_file(state):
        problems = _problems(state.get("file"))
        if not problems:
            raise gr.Error("Open a generated file first.")
        return str(reviews_file.export_approved(state["file"], problems))

    refresh.click(lambda: gr.update(choices=file_choices()), None, [data_file], api_name="verify_files")
    data_file.change(open_file, [data_file], [position, *view, *summary], api_name="verify_open")
    upload.upload(store_upload, [upload], [data_file, position, *view, *summary], api_name="verify_upload")
    # Moving also refreshes the counts, which other reviewers may have changed.
    for event in (previous.click(lambda s: move(s, -1), [position], [position, *view], api_name="verify_previous"),
                  following.click(lambda s: move(s, 1), [position], [position, *view], api_name="verify_next"),
                  unverified.click(next_unverified, [position], [position, *view], api_name="verify_next_unverified"),
                  goto.input(go_to, [position, goto], [position, *view], api_name="verify_goto")):
        event.then(progress_view, [position], summary, api_visibility="private")
    save.click(save_current, [position, reviewer, *sliders, status, comments], [position, *view, *summary],
               api_name="verify_save", concurrency_limit=None)
    export.click(export_file, [position], [exported], api_name="verify_export_approved")
    demo.load(lambda: gr.update(choices=file_choices()), None, [data_file], api_visibility="private")
    return data_file
