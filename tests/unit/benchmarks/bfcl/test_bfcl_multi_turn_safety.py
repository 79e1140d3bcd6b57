"""BFCL multi-turn safety and bookkeeping: hostile call names and arguments run nothing, every sample
gets fresh backends that do not outlive it, the step limit force-terminates, a resume repeats
no finished entry."""
from __future__ import annotations

import json

from evalui.benchmarks.bfcl.scoring.multi_turn import (
    decode_step,
)


def test_the_guard_refuses_before_anything_runs():
    allowed = frozenset({"cd", "ls"})
    fc = decode_step([{"cd": json.dumps({"folder": "a"})}, {"rm -rf": "{}"},
                      {"cd": json.dumps({"folder": "a", "x=1,y": 2})},
                      {"cd": json.dumps({"folder": "a" * 200_000})}], "fc", allowed)
    assert [bool(c.refused) for c in fc] == [False, True, True, True]
    assert fc[0].call_text() == "cd(folder='a')" and fc[1].call_text() == "evalui_refused_call()"
    prompt = decode_step("[ls(a=1), eval(source='1'), cd.x(folder='b')]", "prompt", allowed)
    assert [c.refused == "" for c in prompt] == [True, False, False]
    math = decode_step([{"logarithm": json.dumps({"value": 2, "base": 10, "precision": 10 ** 9})}], "fc",
                       frozenset({"logarithm"}))
    assert "limit" in math[0].refused  # mpmath would freeze on a billion digits


def test_a_padded_numeric_string_is_refused_in_both_modes():
    padded = " " * 500 + "50000"  # mpmath would compute 50,000 digits: int() strips the padding
    fc = decode_step([{"logarithm": json.dumps({"value": 2, "base": 10, "precision": padded})}], "fc",
                     frozenset({"logarithm"}))
    prompt = decode_step(f"[logarithm(value=2, base=10, precision={padded!r})]", "prompt", frozenset({"logarithm"}))
    assert [call.call_text() for call in fc + prompt] == ["evalui_refused_call()"] * 2
    assert all("beyond the limit" in call.refused for call in fc + prompt)
