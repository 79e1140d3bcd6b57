"""Calls and answers as a person reads them: ``f(a=1)`` for a call, BFCL's possible answers with
their accepted values. Shared by the run listings (evalui.ops.history) and the reports below them."""

from __future__ import annotations

import json


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


def pretty_prediction(prediction) -> str:
    """Model output for a table: calls as ``f(a=1)``, one per line; text as written; anything else as indented JSON."""
    if prediction is None:
        return ""
    if isinstance(prediction, str):
        return prediction
    if isinstance(prediction, list) and prediction and all(isinstance(c, dict) and len(c) == 1 for c in prediction):
        return "\n".join(call_text(*next(iter(c.items()))) for c in prediction)
    return json.dumps(prediction, ensure_ascii=False, indent=1)


def pretty_truth(possible_answer) -> str:
    """BFCL's possible answers as calls; a parameter with several accepted values shows them as ``a | b``,
    and "" (BFCL's "may be left out") as ``omitted``. Multi-turn gold is one line per user turn."""
    if not isinstance(possible_answer, list):
        return "" if possible_answer is None else str(possible_answer)
    lines = []
    for turn, call in enumerate(possible_answer, 1):
        if isinstance(call, list):  # multi-turn: each user turn's gold calls, already written as calls
            lines.append(f"turn {turn}: {'; '.join(map(str, call)) if call else '(no calls)'}")
            continue
        for name, parameters in (call.items() if isinstance(call, dict) else []):
            shown = []
            for key, accepted in (parameters or {}).items():
                options = accepted if isinstance(accepted, list) else [accepted]
                words = ["omitted" if o == "" else value_text(o) for o in options]
                shown.append(f"{key}={words[0] if len(words) == 1 else '(' + ' | '.join(words) + ')'}")
            lines.append(f"{name}({', '.join(shown)})")
    return "\n".join(lines)
