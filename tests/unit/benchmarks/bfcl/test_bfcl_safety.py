"""Hostile BFCL results are never executed, and benign arithmetic keeps the official verdict.

bfcl-eval's prompt decoder eval()s binary operations in arguments. These tests send the hostile
lines through every path that decodes (the scoring core in every category and shape, the CLI, a
prompt-mode run) and check that a marker file is never created and nothing is scored correct.
"""
from __future__ import annotations

import ast
import copy
import json

import pytest
from bfcl_cases import gold_calls, prompt_text
from waiting import finishes

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.scoring.safe_calls import (
    MAX_TEXT_CHARS,
    UnsafeExpression,
    guard_python_calls,
)
from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES, score_entry
from unit.benchmarks.bfcl.test_bfcl_agreement import PROMPT_MODEL, official_verdict


def hostile_lines(marker) -> list[str]:
    run = f"__import__('os').system('touch {marker}')"
    return [
        f"[calculate_triangle_area(base={run}+10, height=5)]",
        f"[calculate_triangle_area(base=10, height=5, unit=[{run}+'x'])]",
        f"[calculate_triangle_area(base={{'a': {run}*2}}, height=5)]",
        f"[calculate_triangle_area(base=(lambda: {run})(), height=5)]",
        f"[{run}.real(base=10)]",
        "[calculate_triangle_area(base=10, height=5, unit=open('/etc/passwd').read()+'')]",
        "[calculate_triangle_area(base=9**9**9**9, height=5)]",
        "[calculate_triangle_area(base=10**100000, height=5)]",
        "[calculate_triangle_area(base=" + "[" * 5000 + "]" * 5000 + ", height=5)]",
    ]


def test_hostile_lines_run_nothing_in_any_category_or_shape(tmp_path):
    marker = tmp_path / "ran"

    def score_all():
        for category in CATEGORIES:
            entry = load_category(category)[0]
            for text in hostile_lines(marker):
                verdict = score_entry(category, entry.functions, entry.possible_answer, text)
                assert not verdict.correct, (category, text[:60], verdict)
                # Python-syntax categories refuse the line before decoding it: nothing of it is computed
                # (9**9**9**9 under eval would never end). Java and JavaScript have their own parsers.
                if category not in ("simple_java", "simple_javascript"):
                    assert verdict.error_type == "unsafe_expression", (category, text[:60], verdict)
            # FC shape: arguments are JSON, never code; oversized ones are refused before decoding.
            fc = [{"calculate_triangle_area": json.dumps({"base": "x" * (MAX_TEXT_CHARS + 1)})}]
            assert score_entry(category, entry.functions, entry.possible_answer, fc).error_type in (
                "unsafe_expression", "unexpected_call") or category == "live_relevance"

    finishes(score_all, "scoring the hostile lines", within_s=600)
    assert not marker.exists()


def test_the_worked_example_is_wrong_not_correct(tmp_path):
    entry = load_category("simple_python")[0]
    assert entry.functions[0]["name"] == "calculate_triangle_area"
    marker = tmp_path / "ran"
    verdict = score_entry("simple_python", entry.functions, entry.possible_answer, hostile_lines(marker)[0])
    assert verdict.error_type == "unsafe_expression" and "Nothing in it was run" in verdict.message
    assert not marker.exists()


def _arithmetic_variants(text: str):
    """The gold text with one numeric literal written as arithmetic: equal, and off by one."""
    tree = ast.parse(text, mode="eval")
    numbers = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) in (int, float)]
    if not numbers:
        return []
    variants = []
    for label, make in (("equal", lambda v: ast.BinOp(ast.BinOp(ast.Constant(v), ast.Add(), ast.Constant(7)),
                                                      ast.Sub(), ast.Constant(7))),
                        ("equal_mult", lambda v: ast.BinOp(ast.BinOp(ast.Constant(v), ast.Mult(), ast.Constant(2)),
                                                           ast.Div() if isinstance(v, float) else ast.FloorDiv(),
                                                           ast.Constant(2))),
                        ("off_by_one", lambda v: ast.BinOp(ast.Constant(v), ast.Add(), ast.Constant(1)))):
        changed = copy.deepcopy(tree)
        target = [n for n in ast.walk(changed) if isinstance(n, ast.Constant) and type(n.value) in (int, float)][0]
        parent = next(p for p in ast.walk(changed) for name, value in ast.iter_fields(p)
                      if value is target or (isinstance(value, list) and any(v is target for v in value)))
        for name, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, name, make(target.value))
            elif isinstance(value, list):
                value[:] = [make(target.value) if v is target else v for v in value]
        variants.append((label, ast.unparse(changed)))
    return variants


@pytest.mark.parametrize("category", ["simple_python", "multiple", "parallel", "parallel_multiple", "live_simple",
                                      "live_multiple"])
def test_benign_arithmetic_keeps_the_official_verdict(category, official_runner):
    compared, disagreements = {True: 0, False: 0}, []
    for entry in load_category(category)[:150]:
        for label, text in _arithmetic_variants(prompt_text(gold_calls(entry.possible_answer), "python")):
            reference = official_verdict(official_runner, category, entry, text, PROMPT_MODEL)
            ours = score_entry(category, copy.deepcopy(entry.functions), copy.deepcopy(entry.possible_answer), text)
            compared[ours.correct] += 1
            if ours.correct != reference["valid"] or (not ours.correct and ours.official_error_type != reference.get("error_type")):
                disagreements.append((entry.id, label, text, ours, reference))
    assert not disagreements, disagreements[:3]
    assert compared[True] > 10 and compared[False] > 10, compared


def test_guard_computes_bounded_arithmetic_itself():
    assert guard_python_calls("[f(a=2*5, b='x')]") == "[f(a=10, b='x')]"
    assert guard_python_calls("[f(a=-2*3)]") == "[f(a=-6)]"
    assert guard_python_calls("[f(a='ab' + 'cd')]") == "[f(a='abcd')]"
    assert guard_python_calls("[f(a=1)]") == "[f(a=1)]"  # untouched text is handed on as it is
    for text in ("[f(a=2**100000)]", "[f(a=os.system('x'))]", "[f(a=x[0])]", "[f(a='a'*10**9)]",
                 "[f(a=[i for i in range(9)])]", "[f(**{'a': 1}.__class__)]", "[f(a=1).__class__(b=2)]"):
        with pytest.raises(UnsafeExpression):
            guard_python_calls(text)
