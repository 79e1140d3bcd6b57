"""Two runs side by side, in process: the "differences only" narrowing read from a real store, a
multi-turn answer and its gold written turn by turn as calls (numbered from 1), and the rendered
comparison in words (no keys), escaped, in a two-column grid."""
from __future__ import annotations

import re

import pytest

from evalui.benchmarks.bfcl.calls import pretty_truth
from evalui.store.rows import Sample
from evalui.store.run_store import RunStore
from evalui.ui.i18n.compare import COMPARE_STRINGS
from evalui.viewer import pair
from evalui.viewer.inspector_data import prediction_text
from evalui.viewer.pair_render import side_by_side_html

pytestmark = pytest.mark.unit

HOSTILE = '<img src=x onerror="window.__pwned=1">'
MULTI_TURN = [[[{"cd": '{"folder": "document"}'}, {"mv": '{"source": "log.txt", "destination": "archive"}'}], "Done."],
              [],
              [[{"grep": '{"file_name": "log.txt", "pattern": "Error \\"E1\\""}'}], "Done."]]


def english(key: str, **fields) -> str:
    return COMPARE_STRINGS[key][0].format(**fields)


def store_run(store: RunStore, exp_id: str, outcomes: dict[str, tuple[object, bool]]) -> None:
    store.create_or_get_experiment(exp_id, "echo", "m", "h", {})
    store.add_samples(exp_id, [(i, "g", {}) for i in outcomes])
    for sample_id, (prediction, correct) in outcomes.items():
        store.record_rollout(exp_id, sample_id, request={}, response={"text": ""}, latency_s=0.1, prompt_tokens=1,
                             completion_tokens=1, attempts=1)
        store.record_judgement(exp_id, sample_id, prediction=prediction, correct=correct, verdict={})


def test_differences_only_keeps_other_verdicts_and_other_answers(tmp_path):
    store = RunStore(tmp_path / "s.sqlite")
    store_run(store, "a", {"same": ({"f": 1}, True), "other_answer": ("x", True), "flipped": ("y", True),
                           "both_wrong_same": ("z", False), "spacing": ('{"f":1}', True)})
    store_run(store, "b", {"same": ({"f": 1}, True), "other_answer": ("x2", True), "flipped": ("y", False),
                           "both_wrong_same": ("z", False), "spacing": ('{"f":1}', True)})
    verdicts_a = {s.sample_id: "correct" if s.correct else "wrong" for s in store.samples("a")}
    verdicts_b = {s.sample_id: "correct" if s.correct else "wrong" for s in store.samples("b")}
    found = pair.buckets(verdicts_a, verdicts_b)
    every = pair.chosen(found, pair.ALL, list(verdicts_a))
    assert every == ["same", "other_answer", "flipped", "both_wrong_same", "spacing"]
    assert pair.counted(found) == {"all": 5, "fixed": 0, "broken": 1, "both_wrong": 1, "both_right": 3}
    assert pair.differing(store, "echo", "a", "b", every, verdicts_a, verdicts_b) == ["other_answer", "flipped"]
    assert pair.differing(store, "echo", "a", "b", found["both_right"], verdicts_a, verdicts_b) == ["other_answer"]
    store.close()


def test_a_multi_turn_answer_and_its_gold_read_turn_by_turn_as_calls():
    answer = prediction_text("bfcl", MULTI_TURN)
    assert answer.splitlines()[:4] == ["Turn 1", '  cd(folder="document")', '  mv(source="log.txt", destination="archive")',
                                       "  Done."]
    assert "Turn 2\n  (no call)" in answer and "Turn 3" in answer and "Turn 0" not in answer
    assert '\\"' not in answer.replace('\\"E1\\"', "") and "[[" not in answer  # no nested JSON around the calls
    gold = pretty_truth([["cd(folder='document')", "mv(source='log.txt',destination='archive')"], [],
                         ["grep(file_name='log.txt', pattern='Error')"]])
    assert gold.splitlines() == ["Turn 1", '  cd(folder="document")', '  mv(source="log.txt", destination="archive")',
                                 "Turn 2", "  (no call)", "Turn 3", '  grep(file_name="log.txt", pattern="Error")']
    # A single-turn answer is unchanged: its calls, one per line.
    assert prediction_text("bfcl", [{"f": '{"a": 1}'}]) == "f(a=1)"


def sample(sample_id, *, correct, prediction, calls):
    step = {"messages": [{"role": "user", "content": "go"}], "text": "",
            "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}
    return Sample(exp_id="x", sample_id=sample_id, position=0, group="g", stage="judged", payload={"target": "f(a=1)"}, request={},
                  response={}, trajectory=[step], prediction=prediction, correct=correct, verdict={},
                  error=None, latency_s=1.5, prompt_tokens=10, completion_tokens=3, attempts=1)


def test_the_comparison_is_in_words_escaped_and_in_two_grid_columns():
    a = sample("s1", correct=True, prediction="f(a=1)", calls=[("f", '{"a": 1}')])
    b = sample("s1", correct=False, prediction=HOSTILE, calls=[("f", '{"a": 2}'), ("g", "{}")])
    page = side_by_side_html("echo", "run-a", "run-b", "s1", a, b, "<p>pane A</p>", "<p>pane B</p>", english)
    assert "<img" not in page and "&lt;img src=x" in page
    text = re.sub(r"<[^>]+>", " ", page)
    for key in ("both_right", "only_b", "error_type", "latency_s", "pair."):
        assert key not in text  # labels, not keys
    assert "Verdict" in text and "Latency" in text and "1.50 s" in text and "10 + 3" in text
    assert "Gold answer" in text and "f(a=1)" in text and "only in B" in text
    assert 'data-mark="changed"' in page and "f(a=2)" in text  # the calls as written, not as JSON
    assert '<div class="evalui-pair-a"><h4>' in page and "<p>pane B</p></div></div></div>" in page
