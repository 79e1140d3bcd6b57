"""AIME generation, judge and win rate against a scripted endpoint."""
from __future__ import annotations

import pytest

from evalui.benchmarks.aime.parse import (
    InvalidOutput,
    parse_generated_problem,
    parse_json_with_latex,
    parse_judgement,
    parse_preference,
)
from evalui.benchmarks.aime.tasks import combine_orders

LATEX = [r"\frac", r"\binom", r"\times", r"\neq", r"\underline"]


def test_latex_survives_single_backslashes_and_fences():
    raw = ('```json\n{"problem": "Let $a = \\frac{1}{2}$, $\\binom{5}{2} \\times 2 \\neq 3$, \\underline{b}, '
           '\\theta, \\rho, \\nu, \\tau, \\beta.\\nNew line \\u00e9", "answer": "025", '
           '"solution": "Use \\\\frac already escaped", "topic": "algebra"}\n```')
    problem = parse_generated_problem(raw)
    for command in LATEX + [r"\theta", r"\rho", r"\nu", r"\tau", r"\beta"]:
        assert command in problem["problem"], command
    assert "\f" not in problem["problem"] and "\b" not in problem["problem"] and "\t" not in problem["problem"]
    assert "\nNew line é" in problem["problem"]
    assert problem["answer"] == 25 and problem["solution"] == r"Use \frac already escaped"


@pytest.mark.parametrize("raw, reason", [
    ('{"problem": "unterminated', "no JSON object"),
    ('{"problem": "A long enough problem statement here", "answer": 1000, "solution": "s"}', "0 to 999"),
    ('{"problem": "A long enough problem statement here", "answer": 12.5, "solution": "s"}', "0 to 999"),
    ('{"problem": "A long enough problem statement here", "answer": 12}', "solution"),
    ('{"problem": "short", "answer": 12, "solution": "s"}', "too short"),
    ("", "empty"),
])
def test_invalid_generations_are_rejected(raw, reason):
    with pytest.raises(InvalidOutput, match=reason):
        parse_generated_problem(raw)


def test_judgement_and_preference_parsing():
    scores = parse_judgement('{"correctness": {"score": 5, "comment": "ok"}, "clarity": 4, "difficulty_match": "3",'
                             ' "completeness": {"score": 2}}')
    assert [scores[d]["score"] for d in scores] == [5, 4, 3, 2]
    with pytest.raises(InvalidOutput):
        parse_judgement('{"correctness": 6, "clarity": 4, "difficulty_match": 3, "completeness": 2}')
    with pytest.raises(InvalidOutput):
        parse_judgement("a four, I would say")
    assert parse_preference('{"winner": "Problem 2"}') == "2"
    assert parse_preference('{"winner": "Tie"}') == "tie"
    with pytest.raises(InvalidOutput):
        parse_preference('{"winner": "A"}')
    assert parse_json_with_latex('noise {"a": "\\(x\\)"} noise') == {"a": "\\(x\\)"}


def test_both_orders_must_agree():
    assert combine_orders("1", "2") == ("win", True)  # generated first wins, then generated second wins
    assert combine_orders("2", "1") == ("loss", True)
    assert combine_orders("tie", "tie") == ("tie", True)
    assert combine_orders("1", "1") == ("tie", False)  # position bias cancels out
