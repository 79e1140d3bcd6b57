"""Where a multi-turn conversation's state differs from the gold's, in the viewer's transcript: on a
stored run judged by bfcl-eval's own checker, the turn (counted from 1, as every view counts turns)
and each differing attribute with the model's value and the gold's, in the visitor's language; the
checker's record says "turn N" while the stored verdict keeps the checker's own count."""

from __future__ import annotations

import dataclasses
import html
import re

import pytest

from evalui.benchmarks.bfcl.data import stored_entry
from evalui.benchmarks.bfcl.spec import BENCHMARK
from evalui.benchmarks.bfcl.turns import turns_markdown
from evalui.viewer import data, transcript
from evalui.viewer.texts import TRANSCRIPT_STRINGS
from support.bfcl_multi_turn_run import seed_multi_turn_run

pytestmark = pytest.mark.unit

WRONG, RIGHT = "multi_turn_base_1", "multi_turn_base_0"


def chinese(key: str, **fields) -> str:
    return TRANSCRIPT_STRINGS[key][1].format(**fields)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The stored run (support.bfcl_multi_turn_run), seeded once for the module's tests."""
    from evalui.store.run_store import RunStore

    folder = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVALUI_DATA_DIR", str(folder))
        store = RunStore()
        try:
            yield store, seed_multi_turn_run(store)
        finally:
            store.close()


def _tables(pane: str) -> list[tuple[str, list[list[str]]]]:
    """(heading's text, rows of cell texts) for each verdict table of a pane, unescaped."""
    found = re.findall(r'<h4 class="evalui-verdict-heading"[^>]*>(.*?)</h4><table class="evalui-verdict-table"[^>]*>'
                       r"(.*?)</table>", pane, re.S)

    def text(markup: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", markup))

    return [(text(heading), [[text(cell) for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
                             for row in re.findall(r"<tr>(.*?)</tr>", body.partition("<tbody>")[2], re.S)]) for heading, body in found]


def _checker(pane: str) -> str:
    return html.unescape(re.search(r'<pre class="evalui-inspector-text" data-role="checker">(.*?)</pre>', pane,
                                   re.S).group(1))


def test_the_pane_shows_where_the_state_differs_turns_counted_from_1(run):
    store, exp_id = run
    sample = store.sample(exp_id, WRONG)
    assert sample.verdict["error_type"] == "state_mismatch"
    assert sample.verdict["failed_turn"] == 1  # the checker's own count, kept in the store

    pane, _ = data.pane(store, exp_id, WRONG)
    [(heading, rows)] = _tables(pane)
    assert heading == "State after turn 2 differs from the gold's: GorillaFileSystem"
    [(attribute, model, gold)] = rows
    # turn 2 moves log.txt into the archive; the model left the move out
    assert attribute == "root"
    assert "'archive': <Directory: archive, Parent: workspace, Contents: {}>" in model
    assert "'archive': <Directory: archive, Parent: workspace, Contents: {'log.txt'" in gold
    assert (model, gold) == (sample.verdict["state_differences"]["GorillaFileSystem"]["root"]["model"],
                             sample.verdict["state_differences"]["GorillaFileSystem"]["root"]["ground_truth"])
    checker = _checker(pane)
    assert "failed_turn: turn 2" in checker.splitlines() and "failed_turn: 1" not in checker
    # the table comes after the answers, inside the score section, and the column heads are the page's words
    assert pane.index('data-role="gold"') < pane.index("evalui-verdict-table") < pane.index('data-kind="checker"')
    assert re.findall(r'<table class="evalui-verdict-table".*?<thead><tr>(.*?)</tr>', pane, re.S) == [
        "<th>attribute</th><th>model&#x27;s value</th><th>gold&#x27;s value</th>"]

    # The per-turn view (/bfcl_turns) says the same turn and attribute.
    turns = html.unescape(turns_markdown(sample, stored_entry(sample)))
    assert "Turn 2 (the check failed here)" in turns and "State differs in GorillaFileSystem" in turns
    assert "| root |" in turns


def test_in_chinese_the_page_s_words_are_translated_and_the_run_s_are_not(run):
    store, exp_id = run
    pane, _ = data.pane(store, exp_id, WRONG, chinese)
    [(heading, rows)] = _tables(pane)
    assert heading == "第 2 轮后的状态与标准答案不同： GorillaFileSystem"
    assert rows[0][0] == "root"
    assert "<th>属性</th><th>模型的值</th><th>标准答案的值</th>" in pane
    assert "failed_turn: 第 2 轮" in _checker(pane).splitlines()


def test_a_correct_conversation_adds_nothing(run):
    store, exp_id = run
    sample = store.sample(exp_id, RIGHT)
    assert sample.correct and BENCHMARK.verdict_view(sample).tables == ()
    pane, _ = data.pane(store, exp_id, RIGHT)
    assert "evalui-verdict" not in pane and "failed_turn: None" in _checker(pane)


def test_hostile_state_text_stays_text(run):
    store, exp_id = run
    sample = store.sample(exp_id, WRONG)
    hostile = '<img src=x onerror="alert(1)">'
    verdict = {**sample.verdict, "state_differences": {hostile: {hostile: {"model": hostile, "ground_truth": "</pre>"}}}}
    pane = transcript.transcript_html("bfcl", dataclasses.replace(sample, verdict=verdict), exp_id)
    assert "<img" not in pane and "</pre></td>" in pane and "&lt;/pre&gt;" in pane
    [(heading, [row])] = _tables(pane)
    assert heading.endswith(hostile) and row == [hostile, hostile, "</pre>"]


def test_without_the_entry_the_verdict_alone_says_where(run):
    store, exp_id = run
    sample = store.sample(exp_id, WRONG)
    gone = dataclasses.replace(sample, sample_id="multi_turn_base_987654")  # no such entry in the data
    assert stored_entry(gone) is None
    [table] = BENCHMARK.verdict_view(gone).tables
    assert table.heading.fields == {"turn": 2} and table.subject == "GorillaFileSystem"
    assert [row[0] for row in table.rows] == ["root"]
