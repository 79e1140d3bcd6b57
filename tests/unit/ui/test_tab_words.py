"""The tabs' words in the visitor's language, with what API callers and report.md read unchanged: an
English request gets the same overall line as report.md and the Runs table as history builds it; a
Chinese one the catalog's words, with the table's unknown words and the choices' values left as
they are."""

from __future__ import annotations

from contextlib import contextmanager
from types import SimpleNamespace

import pandas as pd
import pytest
from gradio.context import LocalContext

from evalui.benchmarks.aime.prompts import TOPICS
from evalui.benchmarks.bfcl.report import overall_line
from evalui.benchmarks.gaia import data
from evalui.ui.columns import localized
from evalui.ui.tabs import aime, bfcl, gaia, runs
from support.english_words import english_words

BOARDS = ({"overall": 0.4217, "partial": True}, {"overall": 0.9, "partial": False}, {})


@contextmanager
def visitor(accept_language: str):
    """A request from a browser that asks for ``accept_language`` (what Gradio hands a handler)."""
    token = LocalContext.request.set(SimpleNamespace(headers={"accept-language": accept_language}))
    try:
        yield
    finally:
        LocalContext.request.reset(token)


@pytest.mark.parametrize("board", BOARDS)
def test_the_overall_line_reads_as_report_md_in_english(board):
    with visitor("en-US,en;q=0.9"):
        assert bfcl.overall_markdown(board) == "\n".join(overall_line(board))


def test_the_overall_line_in_chinese():
    with visitor("zh-CN,zh;q=0.9"):
        assert bfcl.overall_markdown(BOARDS[0]) == "- BFCL v4 总分：**42.2%**（部分结果：未运行的类别按 0 计，详见排行榜）"
        assert bfcl.overall_markdown(BOARDS[1]) == "- BFCL v4 总分：**90.0%**"
        assert bfcl.overall_markdown(BOARDS[2]) == ""


def test_the_runs_table_words_follow_the_visitor():
    frame = pd.DataFrame({"exp_id": ["a", "b", "c"], "status": ["finished", "incomplete", "a-new-state"],
                          "metric": ["accuracy", "pass rate", ""], "value": [0.5, None, None]})
    with visitor("en"):
        assert localized(frame, runs.WORD_CELLS) is frame  # English: the table as history built it
    with visitor("zh-CN"):
        shown = localized(frame, runs.WORD_CELLS)
    assert list(shown.columns) == ["运行 ID", "状态", "指标", "数值"]
    assert list(shown["状态"]) == ["已完成", "未完成", "a-new-state"]  # a state no catalog names stays
    assert list(shown["指标"]) == ["准确率", "通过率", ""]
    assert list(frame["status"]) == ["finished", "incomplete", "a-new-state"]  # the built table is not changed


def test_choices_keep_their_english_values():
    with visitor("zh-CN"):
        # Values are what the handlers and API callers send; only the labels are the catalog's.
        assert [value for _, value in aime.reference_choices()] == list(aime.REFERENCE_SOURCES)
        assert [value for _, value in aime.topic_choices()] == list(TOPICS)
        assert [value for _, value in gaia.labelled(gaia.SOURCES, gaia.SOURCE_LABELS)] == list(gaia.SOURCES)
        # A value the catalog has no label for is its own label.
        assert gaia.labelled([*data.SPLITS, "extra"], {s: f"gaia.split_{s}" for s in data.SPLITS})[-1] == ("extra", "extra")


def boards() -> list[dict]:
    """Leaderboards as a run's summary holds them: one part run in part (every other part missing),
    and two parts each run in full on a few entries."""
    from evalui.benchmarks.bfcl.scoring.leaderboard import leaderboard
    from evalui.benchmarks.bfcl.scoring.single_turn import MULTI_TURN_CATEGORIES

    def run(categories):
        return {c: {"successes": 1, "total": 2, "rate": 0.5} for c in categories}

    non_live = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
                "irrelevance"]
    return [leaderboard(run(["simple_python"])), leaderboard(run([*non_live, *MULTI_TURN_CATEGORIES]))]


@pytest.mark.parametrize("board", boards())
def test_the_leaderboard_card_reads_as_report_md_in_english(board):
    from evalui.benchmarks.bfcl.report import leaderboard_lines

    with visitor("en"):
        shown = bfcl.leaderboard_markdown(board).split("\n")
    # report.md's lines but its heading and its wide table, then a line per part run
    stated = [line for line in leaderboard_lines(board) if not line.startswith(("## ", "|"))]
    assert shown[:len(stated)] == stated
    parts = [key for key in [*bfcl.PART_NAMES, *bfcl.OTHER_SUBTOTALS] if key in board]
    assert len(shown) == len(stated) + len(parts) and parts
    assert all(line.startswith(f"- {bfcl.PART_NAMES.get(key) or bfcl.OTHER_SUBTOTALS[key]}: **")
               for line, key in zip(shown[len(stated):], parts, strict=True))


def test_the_leaderboard_card_in_chinese():
    board = boards()[0]
    with visitor("zh-CN"):
        shown = bfcl.leaderboard_markdown(board)
    assert "- 已运行的部分：非实时（AST）" in shown and "完全未运行：实时（AST）、无关检测" in shown
    assert "- 非实时（AST）：**" in shown and " · 权重 10 % · 2 个样本 · 部分" in shown
    assert not english_words(shown)
