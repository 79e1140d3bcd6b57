"""The inspector's data: verdicts, filters and search over stored samples, the conversation from a
trajectory with tool calls and results, and HTML in which model text stays text."""
from __future__ import annotations

from evalui.store.rows import Sample
from evalui.viewer import inspector_data as data


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


def test_verdicts_and_error_types():
    assert [data.verdict_of(s) for s in SAMPLES] == ["correct", "wrong", "wrong", "error", "unscored", "pending"]
    assert [data.error_type_of(s) for s in SAMPLES][:4] == ["", "wrong_answer", "wrong_format", "endpoint_error"]


def test_filters_combine_and_search_ignores_case_and_word_order():
    rows = data.index(SAMPLES)
    assert data.filter_ids(rows, verdict="wrong") == ["a-2", "b-1"]
    assert data.filter_ids(rows, verdict="wrong", group="Level 2") == ["b-1"]
    assert data.filter_ids(rows, error_type="endpoint_error") == ["b-2"]
    assert data.filter_ids(rows, text="PARIS") == ["a-2"]
    assert data.filter_ids(rows, text="sheet what") == ["a-1"]  # found in the conversation
    assert data.filter_ids(rows, text="no call") == ["b-1"]  # found in the checker's reason
    assert data.filter_ids(rows, verdict="correct", text="paris") == []
    choices = data.filter_choices(rows)
    assert choices["verdict"] == ["all", "correct", "wrong", "error", "unscored", "pending"]
    assert choices["group"] == ["all", "Level 1", "Level 2"]
    assert choices["error_type"] == ["all", "wrong_answer", "wrong_format", "endpoint_error"]


def test_the_conversation_has_every_message_call_result_and_step():
    turns = data.conversation(SAMPLES[0])
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "tool python", "assistant"]
    assert turns[1]["text"] == "What is in the sheet?\n[image]"  # an image is named, never inlined
    assert turns[2]["calls"] == ['python({"code": "print(2+2)"})'] and "20 + 5 tokens" in turns[2]["note"]
    assert turns[3]["text"] == "4" and "2 attempt(s)" in turns[4]["note"]
    record = data.detail("gaia", SAMPLES[0])
    assert (record["gold"], record["answer"], record["verdict"]) == ("4", "4", "correct")
    assert data.detail("toy", SAMPLES[2])["reason"] == "no call found"
    assert data.detail("toy", SAMPLES[3])["reason"] == "server_error: HTTP 500"
