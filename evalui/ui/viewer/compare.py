"""The Runs tab's two runs side by side: the paired figures (`evalui compare`'s), the samples bucketed
fixed / broken / both wrong / both right, and a chosen sample's two transcripts beside each other with
their tool-call sequences aligned and the differences marked (evalui.viewer.pair).

The run inputs take any stored id, listed in this session or not (API callers send ids they got
elsewhere); an id the store does not hold is refused with a clear error."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from evalui.errors import InputError
from evalui.reports.comparison import CannotCompare, compare_runs, comparison_markdown
from evalui.ui.i18n.strings import t
from evalui.ui.web.access import guarded, say
from evalui.viewer import data, pair


@dataclass
class PairParts:
    a: gr.Dropdown
    b: gr.Dropdown
    compare: gr.Button
    figures: gr.Markdown
    bucket: gr.Radio
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


def _labelled(sample_id: str, group: str, a: str, b: str) -> tuple[str, str]:
    return f"{sample_id} ({group}): {a} → {b}", sample_id


def bucket_samples(store, a_id: str, b_id: str, bucket: str) -> list[tuple[str, str]]:
    """(label, sample id) of each sample of ``bucket``, labelled with both runs' verdicts."""
    rows_a = {r["id"]: r for r in data.run_rows(store, a_id)}
    verdicts_b = data.verdicts(store, b_id)
    found = pair.buckets({i: r["verdict"] for i, r in rows_a.items()}, verdicts_b)
    return [_labelled(i, rows_a[i]["group"], rows_a[i]["verdict"], verdicts_b[i]) for i in found.get(bucket, [])]


def side_by_side(store, a_id: str, b_id: str, sample_id: str) -> str:
    """One sample of both runs: the aligned tool calls, then run A's and run B's transcripts."""
    pane_a, _ = data.pane(store, a_id, sample_id)
    pane_b, _ = data.pane(store, b_id, sample_id)
    return pair.side_by_side_html(a_id, b_id, sample_id, data.sample_of(store, a_id, sample_id),
                                  data.sample_of(store, b_id, sample_id), pane_a, pane_b)


def build(store) -> PairParts:
    gr.Markdown(t("runs.pair_title"))
    with gr.Row():
        # allow_custom_value: the endpoint takes any stored id, not only those this page listed.
        a = gr.Dropdown(choices=[], label=t("runs.pair_a"), elem_id="runs-pair-a", scale=3, allow_custom_value=True)
        b = gr.Dropdown(choices=[], label=t("runs.pair_b"), elem_id="runs-pair-b", scale=3, allow_custom_value=True)
        compare = gr.Button(t("runs.pair_compare"), elem_id="runs-pair-compare", scale=1)
    figures = gr.Markdown(elem_id="runs-pair-figures")
    with gr.Row():
        bucket = gr.Radio(pair.bucket_choices({name: [] for name in pair.BUCKETS}), value="broken",
                          label=t("runs.pair_bucket"), elem_id="runs-pair-bucket", scale=2)
        flips = gr.Dropdown(choices=[], label=t("runs.pair_flips"), elem_id="runs-pair-flips", scale=3,
                            allow_custom_value=True)
    detail = gr.HTML("", elem_id="runs-pair-detail", js_on_load=None)
    with gr.Accordion(t("runs.pair_json"), open=False):
        record = gr.JSON(elem_id="runs-pair-json")
    parts = PairParts(a, b, compare, figures, bucket, flips, detail, record)

    @guarded(5, note=0)
    def compare_known(a_id, b_id):
        try:
            result = compare_runs(store, a_id, b_id)
        except CannotCompare as exc:
            raise InputError(str(exc)) from None
        found = pair.buckets({i: r["verdict"] for i, r in ((r["id"], r) for r in data.run_rows(store, a_id))},
                             data.verdicts(store, b_id))
        chosen = "broken" if found["broken"] else "fixed" if found["fixed"] else "both_wrong"
        return (comparison_markdown(result), gr.update(choices=pair.bucket_choices(found), value=chosen),
                gr.update(choices=bucket_samples(store, a_id, b_id, chosen), value=None), "", result)

    def compare_pair(a_id, b_id):
        return compare_known(known_run(store, a_id), known_run(store, b_id))

    @guarded(2)
    def show_bucket(a_id, b_id, chosen):
        if chosen not in pair.BUCKETS:
            raise InputError(f"no bucket named {chosen!r}: one of {', '.join(pair.BUCKETS)}")
        return gr.update(choices=bucket_samples(store, a_id, b_id, chosen), value=None), ""

    def compare_sample(a_id, b_id, sample_id):
        a_id, b_id = known_run(store, a_id), known_run(store, b_id)
        if not sample_id:
            raise gr.Error(say("inspector.need_sample"))
        return side_by_side(store, a_id, b_id, str(sample_id))

    compare.click(compare_pair, [a, b], [figures, bucket, flips, detail, record], api_name="runs_compare_pair")
    bucket.input(lambda x, y, z: show_bucket(known_run(store, x), known_run(store, y), z), [a, b, bucket],
                 [flips, detail], api_name="runs_compare_bucket")
    flips.input(compare_sample, [a, b, flips], [detail], api_name="runs_compare_sample")
    return parts
