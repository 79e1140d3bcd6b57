"""The Runs tab's two runs side by side: the paired figures (`evalui compare`'s), the samples bucketed
fixed / broken / both wrong / both right (or all of them, or only those the runs disagree on), and a
chosen sample's two takes beside each other: both answers and the gold, the tool calls aligned, both
transcripts (evalui.viewer.pair, drawn by evalui.viewer.pair_render).

The run inputs take any stored id, listed in this session or not (API callers send ids they got
elsewhere); an id the store does not hold is refused with a clear error."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from evalui.errors import InputError
from evalui.reports.comparison import CannotCompare, compare_runs, comparison_markdown
from evalui.ui.i18n.strings import STRINGS, t
from evalui.ui.web.access import guarded, say
from evalui.viewer import data, pair
from evalui.viewer.pair_render import PAIR_CSS, side_by_side_html
from evalui.viewer.style import TRANSCRIPT_CSS


@dataclass
class PairParts:
    a: gr.Dropdown
    b: gr.Dropdown
    compare: gr.Button
    figures: gr.Markdown
    bucket: gr.Radio
    differ: gr.Checkbox
    flips: gr.Dropdown
    detail: gr.HTML
    record: gr.JSON


def known_run(store, exp_id: str | None) -> str:
    """``exp_id`` when the store holds it; otherwise a gr.Error that names it (the page and the API say so)."""
    if not exp_id:
        raise gr.Error(say("msg.need_run"))
    if store.experiment(str(exp_id)) is None:
        raise gr.Error(f"No stored run named {str(exp_id)[:200]!r}.")
    return str(exp_id)


def bucket_choices(found: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(what the bucket control shows: a title and a count, the bucket's name), ``all`` first."""
    return [(say(f"pair.bucket.{name}", n=n), name) for name, n in pair.counted(found).items()]


def _found(store, a_id: str, b_id: str):
    rows_a = {r["id"]: r for r in data.run_rows(store, a_id)}
    verdicts_b = data.verdicts(store, b_id)
    return rows_a, verdicts_b, pair.buckets({i: r["verdict"] for i, r in rows_a.items()}, verdicts_b)


def bucket_samples(store, a_id: str, b_id: str, bucket: str, differ_only: bool = False) -> list[tuple[str, str]]:
    """(label, sample id) of each sample of ``bucket``, labelled with both runs' verdicts; with
    ``differ_only``, only those whose verdicts or answers differ."""
    if bucket not in pair.CHOICES:
        raise InputError(say("pair.no_bucket", name=repr(bucket), names=", ".join(pair.CHOICES)))
    rows_a, verdicts_b, found = _found(store, a_id, b_id)
    ids = pair.chosen(found, bucket, list(rows_a))
    if differ_only:
        benchmark = data.experiment_of(store, a_id)["benchmark"]
        ids = pair.differing(store, benchmark, a_id, b_id, ids, {i: rows_a[i]["verdict"] for i in ids}, verdicts_b)
    def word(verdict):
        return say(f"pair.v.{verdict}") if f"pair.v.{verdict}" in STRINGS else verdict

    return [(f"{i} ({rows_a[i]['group']}): {word(rows_a[i]['verdict'])} → {word(verdicts_b[i])}", i) for i in ids]


def side_by_side(store, a_id: str, b_id: str, sample_id: str) -> str:
    """One sample of both runs: the answers, the aligned tool calls, then run A's and run B's transcripts."""
    pane_a, _ = data.pane(store, a_id, sample_id, say)
    pane_b, _ = data.pane(store, b_id, sample_id, say)
    return side_by_side_html(data.experiment_of(store, a_id)["benchmark"], a_id, b_id, sample_id,
                             data.sample_of(store, a_id, sample_id), data.sample_of(store, b_id, sample_id),
                             pane_a, pane_b, say)


def build(store) -> PairParts:
    gr.Markdown(t("runs.pair_title"))
    with gr.Row():
        # allow_custom_value: the endpoint takes any stored id, not only those this page listed.
        a = gr.Dropdown(choices=[], label=t("runs.pair_a"), elem_id="runs-pair-a", scale=3, allow_custom_value=True)
        b = gr.Dropdown(choices=[], label=t("runs.pair_b"), elem_id="runs-pair-b", scale=3, allow_custom_value=True)
        compare = gr.Button(t("runs.pair_compare"), elem_id="runs-pair-compare", scale=1)
    figures = gr.Markdown(elem_id="runs-pair-figures")
    with gr.Row():
        # Titles only until a comparison counts the buckets (then in the visitor's language, by say()).
        bucket = gr.Radio([(t(f"pair.title.{name}"), name) for name in pair.CHOICES], value="broken",
                          label=t("runs.pair_bucket"), elem_id="runs-pair-bucket", scale=3)
        differ = gr.Checkbox(False, label=t("pair.differ_only"), elem_id="runs-pair-differ", scale=1)
        flips = gr.Dropdown(choices=[], label=t("runs.pair_flips"), elem_id="runs-pair-flips", scale=3,
                            allow_custom_value=True)
    # Its own css: a gr.HTML's css_template is scoped to it, so the viewer's transcript style is given again.
    detail = gr.HTML("", css_template=TRANSCRIPT_CSS + PAIR_CSS, js_on_load=None, elem_id="runs-pair-detail")
    with gr.Accordion(t("runs.pair_json"), open=False):
        record = gr.JSON(elem_id="runs-pair-json")
    parts = PairParts(a, b, compare, figures, bucket, differ, flips, detail, record)

    @guarded(5, note=0)
    def compare_known(a_id, b_id, differ_only):
        try:
            result = compare_runs(store, a_id, b_id)
        except CannotCompare as exc:
            raise InputError(str(exc)) from None
        _, _, found = _found(store, a_id, b_id)
        chosen = "broken" if found["broken"] else "fixed" if found["fixed"] else "both_wrong"
        return (comparison_markdown(result, say), gr.update(choices=bucket_choices(found), value=chosen),
                gr.update(choices=bucket_samples(store, a_id, b_id, chosen, bool(differ_only)), value=None), "",
                result)

    def compare_pair(a_id, b_id, differ_only=False):
        return compare_known(known_run(store, a_id), known_run(store, b_id), differ_only)

    @guarded(2)
    def show_bucket(a_id, b_id, chosen, differ_only=False, shown=None):
        """The bucket's list; the sample on show stays when the list holds it (else the view empties)."""
        choices = bucket_samples(store, a_id, b_id, chosen, bool(differ_only))
        if shown and shown in {i for _, i in choices}:
            return gr.update(choices=choices), gr.skip()
        return gr.update(choices=choices, value=None), ""

    def compare_sample(a_id, b_id, sample_id):
        a_id, b_id = known_run(store, a_id), known_run(store, b_id)
        if not sample_id or not str(sample_id).strip():
            # The box emptied while a person types in it: the sample on show stays, no error.
            return gr.skip()
        return side_by_side(store, a_id, b_id, str(sample_id).strip())

    compare.click(compare_pair, [a, b, differ], [figures, bucket, flips, detail, record], api_name="runs_compare_pair")
    def bucket_of(a_id, b_id, chosen, differ_only=False, shown=None):
        return show_bucket(known_run(store, a_id), known_run(store, b_id), chosen, differ_only, shown)

    bucket.input(bucket_of, [a, b, bucket, differ, flips], [flips, detail], api_name="runs_compare_bucket")
    # The same list, the filter changed: API callers give it to runs_compare_bucket.
    differ.input(bucket_of, [a, b, bucket, differ, flips], [flips, detail], api_visibility="private")
    flips.input(compare_sample, [a, b, flips], [detail], api_name="runs_compare_sample")
    return parts
