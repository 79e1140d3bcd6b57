"""The viewer's pure parts: light rows filtered, sorted and paged; the list and the transcript as inert
HTML (roles, folded system prompt and function docs, tool calls and results, the score with its
explanation and metadata); two runs bucketed and their tool calls aligned."""
from __future__ import annotations

import re

import pytest

from evalui.store.rows import Sample
from evalui.ui.i18n.viewer import VIEWER_STRINGS
from evalui.viewer import pair, rows
from evalui.viewer.pair_render import aligned_calls_html
from evalui.viewer.transcript import transcript_html

pytestmark = pytest.mark.unit


def english(key: str, **fields) -> str:
    return VIEWER_STRINGS[key][0].format(**fields)

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>alert(1)</script>'
LONG_SYSTEM = "You are a careful agent.\n" + "Rule: never guess.\n" * 40


def sample(sample_id, group="g", *, stage="judged", correct=None, verdict=None, error=None, prediction=None,
           trajectory=None, request=None, latency=1.0, tokens=(10, 5)):
    return Sample(exp_id="run", sample_id=sample_id, position=0, group=group, stage=stage, payload={},
                  prediction=prediction, correct=correct, verdict=verdict, error=error, trajectory=trajectory,
                  request=request, latency_s=latency, prompt_tokens=tokens[0], completion_tokens=tokens[1])


def steps(*calls, reply="", result="4"):
    return [{"messages": [{"role": "system", "content": LONG_SYSTEM}, {"role": "user", "content": "2+2?"}],
             "text": "", "tool_calls": [{"name": n, "arguments": a} for n, a in calls],
             "tool_results": [{"name": n, "content": result, "error": None} for n, _ in calls],
             "prompt_tokens": 20, "completion_tokens": 5, "latency_s": 0.5, "attempts": 1, "note": ""},
            {"messages": [], "text": reply, "tool_calls": [], "tool_results": [], "prompt_tokens": 9,
             "completion_tokens": 2, "latency_s": 0.25, "attempts": 2, "note": ""}]


SAMPLES = [sample("a-1", "L1", correct=True, verdict={}, latency=2.0),
           sample("a-2", "L1", correct=False, verdict={"error_type": "wrong_answer"}, latency=0.5, tokens=(100, 1)),
           sample("b-1", "L2", stage="init", error="server_error: HTTP 500", latency=None, tokens=(0, 0)),
           sample("b-2", "L2", correct=False, verdict={"error_type": "wrong_format"}, latency=1.5)]
FOUND = {"b-1": [{"scanner": "endpoint_error", "severity": "invalid"}], "a-2": [{"scanner": "refusal", "severity": "warning"}]}
ROWS = [rows.light_row(s, FOUND.get(s.sample_id), n) for n, s in enumerate(SAMPLES)]


def ids(found):
    return [r["id"] for r in found]


def test_rows_filter_by_verdict_group_error_type_finding_and_search_matches():
    assert ids(rows.filtered(ROWS, verdict="wrong")) == ["a-2", "b-2"]
    assert ids(rows.filtered(ROWS, verdict="wrong", group="L2")) == ["b-2"]
    assert ids(rows.filtered(ROWS, error_type="endpoint_error")) == ["b-1"]
    assert ids(rows.filtered(ROWS, finding=rows.ANY_INVALID)) == ["b-1"]
    assert ids(rows.filtered(ROWS, finding="refusal")) == ["a-2"]
    assert ids(rows.filtered(ROWS, ids={"a-1", "b-2"})) == ["a-1", "b-2"]


def test_rows_sort_by_each_column_with_empty_values_last():
    assert ids(rows.sorted_rows(ROWS, "latency_s")) == ["a-2", "b-2", "a-1", "b-1"]
    assert ids(rows.sorted_rows(ROWS, "latency_s", descending=True)) == ["a-1", "b-2", "a-2", "b-1"]
    assert ids(rows.sorted_rows(ROWS, "tokens", descending=True)) == ["a-2", "a-1", "b-2", "b-1"]
    assert ids(rows.sorted_rows(ROWS, "verdict")) == ["a-1", "a-2", "b-2", "b-1"]  # correct, wrong, wrong, error
    assert ids(rows.sorted_rows(ROWS, "error_type")) == ["b-1", "a-2", "b-2", "a-1"]
    assert ids(rows.sorted_rows(ROWS, "not a column")) == ["a-1", "a-2", "b-1", "b-2"]


def test_pages_steps_and_positions():
    many = [dict(ROWS[0], id=f"s{n}", position=n) for n in range(120)]
    page, number = rows.page_of(many, 2)
    assert (ids(page)[0], len(page), number) == ("s100", 20, 2)
    assert rows.page_of(many, 99)[1] == 2 and rows.page_count(120) == 3 and rows.page_count(0) == 1
    names = ids(many)
    assert rows.page_holding(names, "s77") == 1
    assert rows.step(names, "s0", -1) == "s0" and rows.step(names, "s49", 1) == "s50"
    assert rows.step(names, "gone", 1) == "s0" and rows.step([], None, 1) is None
    assert rows.position_text(names, "s9") == "10 / 120" and rows.position_text([], None) == "0 / 0"


def test_the_list_is_inert_html_with_coloured_verdicts_and_sortable_headers():
    hostile = [rows.light_row(sample(HOSTILE, HOSTILE, correct=False, verdict={"error_type": HOSTILE}))]
    page = rows.list_html(hostile, selected=HOSTILE, column="latency_s", descending=True, page=0, total=1,
                          words=english)
    assert "<img" not in page and "<script" not in page and "&lt;img" in page
    assert 'data-verdict="wrong"' in page and 'class="evalui-selected"' in page
    assert re.search(r'<th data-sort="latency_s" aria-sort="descending"[^>]*>latency ▼', page)
    assert 'data-page="-1" disabled' in page and "page 1 / 1 · 1 samples" in page


def test_the_transcript_shows_roles_folds_long_parts_and_escapes_model_text():
    tools = [{"type": "function", "function": {"name": "add", "description": "Adds <b>numbers</b>."}}]
    shown = sample("x", correct=False, prediction=HOSTILE, request={"tools": tools},
                   verdict={"error_type": "wrong_answer", "reason": HOSTILE, "scorer": "judge",
                            "metadata": {"mean": 2.5, "dimensions": {"rigour": 2, "novelty": 3}}},
                   trajectory=steps(("add", '{"a": 2, "b": 2}'), reply=HOSTILE, result="<i>4</i>"))
    page = transcript_html("toy", shown, "run", [{"scanner": "refusal", "severity": "warning", "message": HOSTILE}])
    assert "<img" not in page and "<script" not in page and "<i>4" not in page and "<b>numbers" not in page
    roles = re.findall(r'<div class="evalui-msg evalui-role-(\w+)"', page)
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert re.search(r'<details class="evalui-fold" data-kind="system"><summary>system prompt \(\d+ characters\):', page)
    assert '<details class="evalui-fold" data-kind="function-docs"><summary>Function docs (1): <span class="evalui-fold-text evalui-data">add' in page
    assert '<details class="evalui-fold" data-kind="tool-call"><summary>call <span class="evalui-fold-text evalui-data">add({ &quot;a&quot;: 2' in page
    assert '<details class="evalui-fold" data-kind="tool-result" open><summary>result of add:' in page
    assert 'data-value="I"' in page and "scorer <code>judge</code>" in page and "error type <code>wrong_answer</code>" in page
    assert '<tr class="evalui-data"><th>dimensions.rigour</th><td>2</td>' in page \
        and '<tr class="evalui-data"><th>mean</th><td>2.5</td>' in page
    assert 'data-scanner="refusal"' in page and "2 attempt(s)" in page


def test_buckets_and_aligned_tool_calls():
    found = pair.buckets({"1": "wrong", "2": "correct", "3": "wrong", "4": "correct", "5": "pending", "6": "error"},
                         {"1": "correct", "2": "error", "3": "wrong", "4": "correct", "5": "correct", "6": "correct"})
    assert found == {"fixed": ["1", "6"], "broken": ["2"], "both_wrong": ["3"], "both_right": ["4"]}
    a = [{"name": "ls", "arguments": "{}"}, {"name": "cd", "arguments": '{"d": "x"}'}, {"name": "cat", "arguments": {"f": 1}}]
    b = [{"name": "ls", "arguments": {}}, {"name": "cd", "arguments": '{"d": "y"}'}, {"name": "cat", "arguments": '{"f": 1}'},
         {"name": "rm", "arguments": "{}"}]
    aligned = pair.aligned_calls(a, b)
    assert [r["mark"] for r in aligned] == ["same", "changed", "same", "only_b"]
    page = aligned_calls_html(pair.aligned_calls([{"name": HOSTILE, "arguments": "{}"}], []), lambda key, **_: key)
    assert "<img" not in page and 'data-mark="only_a"' in page
