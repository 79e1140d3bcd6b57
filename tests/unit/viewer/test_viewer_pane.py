"""The viewer's list and pane as HTML: the pager and the column chooser above the rows, ids and
figures that never break, the pane's JSON tab and Copy button, and a search's hits marked in the
pane's texts only (never inside markup or a character reference), the folds holding one opened."""

from __future__ import annotations

import json
import re

import pytest

from evalui.store.rows import Sample
from evalui.store.search import checked_phrases
from evalui.ui.i18n.viewer import VIEWER_STRINGS
from evalui.viewer import rows, transcript

pytestmark = pytest.mark.unit

HOSTILE = '<img src=x onerror="window.__pwned=1">'


def english(key: str, **fields) -> str:
    return VIEWER_STRINGS[key][0].format(**fields)


def chinese(key: str, **fields) -> str:
    return VIEWER_STRINGS[key][1].format(**fields)


def sample(**fields) -> Sample:
    steps = [{"messages": [{"role": "user", "content": "What is the factorial of 5? Use math_factorial."}],
              "text": "", "tool_calls": [{"name": "math_factorial", "arguments": '{"number": 5, "why": "' + "x " * 60 + 'factorial"}'}],
              "tool_results": [{"name": "math_factorial", "content": "120 & <b>done</b> amp", "error": None}],
              "prompt_tokens": 20, "completion_tokens": 5, "latency_s": 0.5, "attempts": 1, "note": ""}]
    return Sample(**{"exp_id": "run", "sample_id": "simple_python_1", "position": 1, "group": "simple_python",
                     "stage": "judged", "payload": {"category": "simple_python"}, "prediction": "factorials",
                     "correct": False, "verdict": {"error_type": "value_error:dict_key"}, "trajectory": steps,
                     "latency_s": 1.25, "prompt_tokens": 20, "completion_tokens": 5, "claimed_by": "host:42",
                     **fields})


def listed(selected="simple_python_1", **options) -> str:
    row = rows.light_row(sample(), [{"scanner": "refusal", "severity": "warning"}], 1)
    return rows.list_html([row], selected=selected, column="id", descending=False, page=1, total=60,
                          words=english, **options)


def test_the_pager_and_the_column_chooser_come_before_the_rows():
    page = listed()
    assert page.index('class="evalui-pager"') < page.index('class="evalui-chooser"') < page.index("<table")
    assert "page 2 / 2 · 60 samples" in page and 'data-page="0"' in page and 'data-page="2" disabled' in page
    boxes = re.findall(r'<input type="checkbox" data-column="(\w+)" checked>', page)
    assert boxes == ["group", "verdict", "error_type", "latency_s", "tokens", "findings"]  # the id stays
    heads = re.findall(r'<th[^>]* data-col="(\w+)"[^>]*>([^<]*)</th>', page)
    assert heads == [("id", "id ▲"), ("group", "group"), ("verdict", "verdict"), ("error_type", "error type"),
                     ("latency_s", "latency"), ("tokens", "tokens"), ("findings", "findings")]
    assert 'data-reveal' not in page and 'data-reveal="true"' in listed(reveal=True)


def test_ids_and_figures_never_break_and_words_wrap_after_underscores():
    page = listed()
    assert '<td data-col="id">simple_python_1</td>' in page  # no break opportunity inside an id
    assert '<td data-col="error_type">value_<wbr>error:dict_<wbr>key</td>' in page
    assert '<td data-col="latency_s">1.25 s</td>' in page and '<td data-col="tokens">25</td>' in page
    assert '<td data-col="findings" class="evalui-flags" title="refusal">⚑</td>' in page


def test_the_list_speaks_the_visitors_language():
    row = rows.light_row(sample(), [], 1)
    page = rows.list_html([], selected=None, column="id", descending=False, page=0, total=0, words=chinese)
    assert "没有匹配的样本。" in page and "第 1 / 1 页 · 共 0 个样本" in page and ">编号 ▲</th>" in page
    assert ">latency" not in rows.list_html([row], selected=None, column="position", descending=False, page=0,
                                            total=1, words=chinese)


def test_the_json_is_the_stored_sample_without_the_workers_claim():
    shown = json.loads(transcript.sample_json(sample()))
    assert shown["sample_id"] == "simple_python_1" and shown["trajectory"][0]["tool_calls"][0]["name"] == "math_factorial"
    assert "claimed_by" not in shown and shown["latency_s"] == 1.25


def test_the_pane_gets_tabs_a_copy_button_and_the_escaped_json():
    pane = transcript.with_tabs("<p>pane</p>", transcript.sample_json(sample(prediction=HOSTILE)), english, 3, "fact")
    assert pane.startswith('<div class="evalui-sample" data-tab="transcript">')
    assert re.findall(r'data-tab="(\w+)" aria-selected="(\w+)">(\w+)<', pane) == \
        [("transcript", "true", "Transcript"), ("json", "false", "JSON")]
    assert 'data-copied-text="Copied">Copy JSON</button>' in pane
    assert '<span class="evalui-hits" data-hits="3">3 matches of “fact” in this sample</span>' in pane
    assert "<img" not in pane and "&lt;img" in pane
    assert 'class="evalui-hits"' not in transcript.with_tabs("<p>pane</p>", "{}", english)  # no search: no count


def test_search_hits_are_marked_in_the_texts_and_counted():
    pane = transcript.transcript_html("bfcl", sample(), "run")
    marked, count = transcript.highlighted(pane, checked_phrases("factorial"))
    hits = re.findall(r'<mark class="evalui-hit">([^<]*)</mark>', marked)
    # A word and a prefix as the store's search finds them: "factorial", "factorials", "math_factorial"'s second
    # word (in the call's summary too); the call's arguments hold one past the summary's first 80 characters.
    assert count == len(hits) >= 6 and {h.lower() for h in hits} == {"factorial"}
    assert '<details class="evalui-fold" data-kind="tool-call">' in pane  # folded, a hit inside: opened
    assert re.sub(r'</?mark[^>]*>', "", marked) == \
        pane.replace('<details class="evalui-fold" data-kind="tool-call">', '<details class="evalui-fold" data-kind="tool-call" open>')


def test_a_hit_is_never_marked_in_markup_or_a_character_reference():
    pane = transcript.transcript_html("bfcl", sample(), "run")
    for query in ("amp", "lt", "class", "evalui"):
        marked, count = transcript.highlighted(pane, checked_phrases(query))
        inside = [m for m in re.finditer(r'<mark class="evalui-hit">([^<]*)</mark>', marked)]
        assert all(m.group(1).lower() == query for m in inside)
        assert "&<mark" not in marked and "&amp<mark" not in marked
        assert count == len(inside)
    assert transcript.highlighted(pane, checked_phrases("amp"))[1] == 2  # the tool result's own word (in its
    # summary and its text), never "&amp;"
    assert transcript.highlighted(pane, checked_phrases("class"))[1] == 0  # an attribute, not a text
    assert transcript.highlighted(pane, []) == (pane, 0)


def test_a_words_inner_letters_and_a_whole_words_tail_are_not_hits():
    pane = transcript.transcript_html("bfcl", sample(prediction="refactorial factorialx"), "run")
    marked, _ = transcript.highlighted(pane, checked_phrases("actorial"))
    assert "<mark" not in marked  # only a word's start matches
    _, prefix = transcript.highlighted(pane, checked_phrases("factorial"))
    _, whole = transcript.highlighted(pane, checked_phrases("factorial_zzz"))  # not a piece's last word: whole words
    assert prefix > whole > 0


def test_the_function_docs_keep_no_mark_and_stay_folded():
    tools = [{"type": "function", "function": {"name": "math_factorial", "description": "The factorial of n."}}]
    pane = transcript.transcript_html("bfcl", sample(request={"tools": tools}), "run")
    docs = re.search(r'<details class="evalui-fold" data-kind="function-docs">.*?</details>', pane, re.S).group(0)
    assert "factorial" in docs
    marked, count = transcript.highlighted(pane, checked_phrases("factorial"))
    assert docs in marked and count > 0  # the docs as they were; the conversation's hits marked
