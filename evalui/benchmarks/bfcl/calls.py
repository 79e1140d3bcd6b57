"""Calls and answers as a person reads them: ``f(a=1)`` for a call, BFCL's possible answers with
their accepted values, a multi-turn answer turn by turn ("Turn 1", numbered from 1 in every view,
its calls one per line). Shared by the run listings (evalui.ops.history), the viewer (the benchmark's
render_prediction and target) and the reports below them."""

from __future__ import annotations

import ast
import json
from typing import cast

TURN = "Turn {n}"
NO_CALL = "(no call)"


def value_text(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def call_text(name: str, arguments) -> str:
    """``name(a=1, b="x")``: one function call as a person writes it."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return f"{name}({arguments})"
    if not isinstance(arguments, dict):
        return f"{name}({value_text(arguments)})"
    return f"{name}({', '.join(f'{k}={value_text(v)}' for k, v in arguments.items())})"


def _is_turns(value) -> bool:
    # A multi-turn answer is a list of turns, each a list (of steps, or of gold calls); a single-turn
    # one is a list of calls ({name: arguments}).
    return isinstance(value, list) and bool(value) and all(isinstance(turn, list) for turn in value)


def _turns_text(turns: list[list[str]]) -> str:
    return "\n".join(f"{TURN.format(n=n)}\n" + "\n".join(f"  {line}" for line in (lines or [NO_CALL]))
                     for n, lines in enumerate(turns, start=1))


def _step_lines(step) -> list[str]:
    if step is None or step == []:
        return []
    return pretty_prediction(step).splitlines() or [""]


def turns_prediction(prediction: list[list]) -> str:
    """A multi-turn answer (per turn, each step's calls or text), turn by turn, one call per line."""
    return _turns_text([[line for step in turn for line in _step_lines(step)] for turn in prediction])


def gold_call_text(call: str) -> str:
    """One of BFCL's multi-turn gold calls (Python source, ``cd(folder='x')``) written as the model's
    calls are (``cd(folder="x")``), so the two read alike; as given when it is not a plain call."""
    from evalui.benchmarks.bfcl.scoring.official import parse_python  # one parse at a time, as the runs'

    try:
        node = cast(ast.Expression, parse_python(call.strip())).body
        if not isinstance(node, ast.Call) or node.args or not isinstance(node.func, (ast.Name, ast.Attribute)):
            return call
        return call_text(ast.unparse(node.func), {k.arg: ast.literal_eval(k.value) for k in node.keywords})
    except (SyntaxError, ValueError, TypeError, RecursionError):
        return call


def pretty_prediction(prediction) -> str:
    """Model output for a table: calls as ``f(a=1)``, one per line; a multi-turn answer turn by
    turn; text as written; anything else as indented JSON."""
    if prediction is None:
        return ""
    if isinstance(prediction, str):
        return prediction
    if _is_turns(prediction):
        return turns_prediction(prediction)
    if isinstance(prediction, list) and prediction and all(isinstance(c, dict) and len(c) == 1 for c in prediction):
        return "\n".join(call_text(*next(iter(c.items()))) for c in prediction)
    return json.dumps(prediction, ensure_ascii=False, indent=1)


def pretty_truth(possible_answer) -> str:
    """BFCL's possible answers as calls; a parameter with several accepted values shows them as ``a | b``,
    and "" (BFCL's "may be left out") as ``omitted``. Multi-turn gold is turn by turn, as the answer is."""
    if not isinstance(possible_answer, list):
        return "" if possible_answer is None else str(possible_answer)
    if _is_turns(possible_answer):  # each user turn's gold calls, already written as calls
        return _turns_text([[gold_call_text(str(call)) for call in turn] for turn in possible_answer])
    lines = []
    for call in possible_answer:
        for name, parameters in (call.items() if isinstance(call, dict) else []):
            shown = []
            for key, accepted in (parameters or {}).items():
                options = accepted if isinstance(accepted, list) else [accepted]
                words = ["omitted" if o == "" else value_text(o) for o in options]
                shown.append(f"{key}={words[0] if len(words) == 1 else '(' + ' | '.join(words) + ')'}")
            lines.append(f"{name}({', '.join(shown)})")
    return "\n".join(lines)
