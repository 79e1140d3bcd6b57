"""The inspector's data, read as the viewer reads it: verdicts, filters and search over a stored run
(evalui.viewer.data.listing, over the store's light rows and full-text search), the conversation
from a trajectory with tool calls and results (evalui.viewer.messages), and the sample's answers and
the checker's reason in the transcript pane (evalui.viewer.transcript)."""
from __future__ import annotations

from evalui.reports.verdicts import verdict_of
from evalui.store.rows import Sample
from evalui.viewer import data, messages, rows
from evalui.viewer.inspector_data import error_type_of
from evalui.viewer.transcript import score_html, transcript_html


def sample(sample_id, group, *, stage="judged", correct=None, verdict=None, error=None, prediction=None,
           trajectory=None, payload=None):
    return Sample(exp_id="run", sample_id=sample_id, position=0, group=group, stage=stage, payload=payload or {},
                  prediction=prediction, correct=correct, verdict=verdict, error=error, trajectory=trajectory,
                  latency_s=1.25, prompt_tokens=30, completion_tokens=7)


AGENT_STEPS = [
    {"messages": [{"role": "system", "content": "Be brief."},
                  {"role": "user", "content": [{"type": "text", "text": "What is in the sheet?"},
                                               {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}],
     "text": "", "tool_calls": [{"name": "python", "arguments": {"code": "print(2+2)"}}],
     "tool_results": [{"name": "python", "content": "4", "error": None}],
     "prompt_tokens": 20, "completion_tokens": 5, "latency_s": 0.5, "attempts": 1, "note": ""},
    {"messages": [], "text": "FINAL ANSWER: 4 <b>bold</b>", "tool_calls": [], "tool_results": [],
     "prompt_tokens": 10, "completion_tokens": 2, "latency_s": 0.25, "attempts": 2, "note": ""},
]
SAMPLES = [
    sample("a-1", "Level 1", correct=True, verdict={"error_type": None}, prediction="4", trajectory=AGENT_STEPS,
           payload={"task_id": "a-1", "question": "What is in the sheet?", "final_answer": "4"}),
    sample("a-2", "Level 1", correct=False, verdict={"error_type": "wrong_answer"}, prediction="Paris"),
    sample("b-1", "Level 2", correct=False, verdict={"error_type": "wrong_format", "error": "no call found"},
           prediction="London"),
    sample("b-2", "Level 2", stage="init", error="server_error: HTTP 500"),
    sample("b-3", "Level 2", correct=False, verdict={"scored": False}),
    sample("b-4", "Level 2", stage="init"),
]


def stored(store, samples=SAMPLES, exp_id="run", benchmark="gaia") -> str:
    """``samples`` written to ``store`` as a run writes them: rollout and judgement, or an endpoint error."""
    store.create_or_get_experiment(exp_id, benchmark, "m", "h", {})
    store.add_samples(exp_id, [(s.sample_id, s.group, s.payload) for s in samples])
    for s in samples:
        if s.error:
            store.record_error(exp_id, s.sample_id, request={}, error=s.error, attempts=1)
        elif s.stage == "judged":
            store.record_rollout(exp_id, s.sample_id, request={}, response={}, latency_s=s.latency_s,
                                 prompt_tokens=s.prompt_tokens, completion_tokens=s.completion_tokens, attempts=1,
                                 trajectory=s.trajectory)
            store.record_judgement(exp_id, s.sample_id, prediction=s.prediction, correct=bool(s.correct),
                                   verdict=s.verdict or {})
    return exp_id


def shown(store, exp_id="run", **filters) -> list[str]:
    """The ids the viewer's list shows for these filters and search (evalui.viewer.data.listing)."""
    return [r["id"] for r in data.listing(store, exp_id, **filters)[1]]


def test_verdicts_and_error_types():
    assert [verdict_of(s) for s in SAMPLES] == ["correct", "wrong", "wrong", "error", "unscored", "pending"]
    assert [error_type_of(s) for s in SAMPLES][:4] == ["", "wrong_answer", "wrong_format", "endpoint_error"]


def test_filters_combine_and_search_ignores_case_and_word_order(store):
    exp_id = stored(store)
    assert shown(store, exp_id, verdict="wrong") == ["a-2", "b-1"]
    assert shown(store, exp_id, verdict="wrong", group="Level 2") == ["b-1"]
    assert shown(store, exp_id, error_type="endpoint_error") == ["b-2"]
    assert shown(store, exp_id, text="PARIS") == ["a-2"]
    assert shown(store, exp_id, text="sheet what") == ["a-1"]  # found in the conversation
    assert shown(store, exp_id, text="HTTP 500") == ["b-2"]  # found in the endpoint's error
    assert shown(store, exp_id, verdict="correct", text="paris") == []
    choices = rows.filter_choices(data.run_rows(store, exp_id))
    assert choices["verdict"] == ["all", "correct", "wrong", "error", "unscored", "pending"]
    assert choices["group"] == ["all", "Level 1", "Level 2"]
    assert choices["error_type"] == ["all", "wrong_answer", "wrong_format", "endpoint_error"]


def test_search_finds_the_checkers_reason(store):
    """The index holds each verdict's reason (evalui.store.search, written with the verdict)."""
    assert shown(store, stored(store), text="no call") == ["b-1"]


def test_the_conversation_has_every_message_call_result_and_step():
    blocks = messages.blocks(SAMPLES[0])
    assert [b["role"] for b in blocks] == ["system", "user", "assistant", "tool", "assistant"]
    assert blocks[1]["text"] == "What is in the sheet?\n[image]"  # an image is named, never inlined
    assert blocks[2]["calls"] == [{"name": "python", "arguments": {"code": "print(2+2)"}}]
    assert "20 + 5 tokens" in blocks[2]["figures"]
    assert (blocks[3]["name"], blocks[3]["text"]) == ("python", "4") and "2 attempt(s)" in blocks[4]["figures"]
    page = transcript_html("gaia", SAMPLES[0], "run")
    assert 'data-verdict="correct"' in page
    assert '<pre class="evalui-inspector-text" data-role="answer">4</pre>' in page
    assert '<pre class="evalui-inspector-text" data-role="gold">4</pre>' in page
    assert '<pre class="evalui-inspector-text" data-role="reason">no call found</pre>' in score_html("toy", SAMPLES[2])
    assert '<pre class="evalui-inspector-text" data-role="reason">server_error: HTTP 500</pre>' in score_html(
        "toy", SAMPLES[3])


def test_the_pane_explains_a_verdict_in_the_exported_scores_words():
    """One reason_of (evalui.core.record): the pane's explanation is the record's score explanation,
    the checker's error, reason, message, comment or note, in that order, else its error type; a
    sample never judged is explained by the endpoint's error."""
    from evalui.core.record import SampleRecord

    def explained(verdict):
        judged = sample("x", "g", correct=False, verdict=verdict)
        page = score_html("toy", judged)
        assert SampleRecord.of(judged).score.explanation in page
        return page

    assert 'data-role="reason">the checker said so</pre>' in explained(
        {"error_type": "wrong_value", "note": "ignored", "comment": "the checker said so"})
    assert '<h4>Explanation</h4><pre class="evalui-inspector-text" data-role="reason">no unit</pre>' in explained(
        {"error_type": "wrong_value", "note": "no unit"})
    assert "<h4>Explanation</h4>" not in explained({"error_type": "wrong_value"})  # the error type is shown once
    assert 'data-role="reason">wrong</pre>' in score_html("toy", sample("x", "g", correct=False, verdict={}))
    assert 'data-role="reason">HTTP 502</pre>' in score_html("toy", sample("x", "g", stage="init", error="HTTP 502"))
