"""What bfcl's executor does to a call besides running it, reproduced without ``eval``.

bfcl-eval runs a model's call by writing it as text (``name(arg='value', …)``), passing the whole
text through ``_process_method_calls`` and ``eval()``-ing the result. That rewrite is a regular
expression over the whole text, string arguments included: every word followed by ``(``, spaces
before the bracket dropped, becomes ``word(`` or, for a backend method, ``<instance>.word(``. So a
memory entry ``'grinder (or any other)'`` is stored upstream as ``'grinder(or any other)'``, and a
model reads that back in every later request. evalui runs the call on parsed arguments, so it
applies the same rewrite, with bfcl's own function, to the call text it writes, and reads the
arguments back with ``ast.literal_eval``: plain data in, plain data out, nothing executed.

A call evalui does not run still answers with the words bfcl's executor would have produced for a
name it cannot run (``name 'x' is not defined``, or ``Function call exit is not allowed.``), since
the model reads them.
"""

from __future__ import annotations

import ast
import inspect
import re
from typing import Any, cast

from evalui.benchmarks.bfcl.scoring.multi_turn import NOT_ENTRY_FUNCTION, DecodedCall
from evalui.benchmarks.bfcl.scoring.official import parse_python

# bfcl's executor refuses these by name before its eval (multi_turn_utils.execute_multi_turn_func_call).
FORBIDDEN_NAMES = ("kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run")
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def instance_name(model_name: str, entry_id: str, class_name: str) -> str:
    """The global bfcl keeps an entry's backend under, as its handler names it during inference."""
    model = model_name.replace("/", "_").replace("-", "_").replace(".", "_")
    return re.sub(r"[-./:]", "_", f"{model}_{entry_id}_{class_name}_instance")


def method_mapping(instances: dict[str, object], model_name: str, entry_id: str) -> dict[str, str]:
    """Method name to instance name, as bfcl's executor maps them: public bound methods of each
    involved class's instance, a later class winning a shared name."""
    mapping = {}
    for class_name, instance in instances.items():
        owner = instance_name(model_name, entry_id, class_name)
        for name, _ in inspect.getmembers(instance, predicate=inspect.ismethod):
            if not name.startswith("_"):
                mapping[name] = owner
    return mapping


def rewritten_arguments(call: DecodedCall, mapping: dict[str, str]) -> dict:
    """The call's arguments after bfcl's rewrite of its call text (unchanged when no string holds
    a word followed by a bracket)."""
    if not any("(" in repr(value) for value in call.arguments.values()):
        return call.arguments
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import _process_method_calls

    text = _process_method_calls(call.call_text(), mapping)
    try:
        parsed: Any = cast(ast.Expression, parse_python(text)).body  # not a Call: the AttributeError below
        return {keyword.arg: ast.literal_eval(keyword.value) for keyword in parsed.keywords}
    except (SyntaxError, ValueError, AttributeError):  # a value whose repr does not read back: keep it as sent
        return call.arguments


def not_run_text(name: str) -> str | None:
    """What bfcl's executor answers for a call of ``name`` that no backend defines; None where its
    answer cannot be known without running the text (a name that is no identifier path)."""
    bare = name.split("(")[0]
    last = bare.split(".")[1] if "." in bare else bare
    if last in FORBIDDEN_NAMES:
        return f"Error during execution: Function call {last} is not allowed."
    if not _DOTTED_NAME.fullmatch(name):
        return None
    return f"Error during execution: name {name.split('.')[0]!r} is not defined"


def refusal_text(call: DecodedCall, implemented: frozenset[str]) -> str:
    """The result a call evalui will not run answers with: bfcl's words for a name no backend
    defines, else evalui's reason (an argument or a method bfcl would have run: its result cannot be
    known without running it)."""
    own = (f"Error during execution: {call.name[:80]!r} was not run: "
           f"{call.refused or 'not one of the available functions'}.")
    by_name = not call.refused or call.refused == NOT_ENTRY_FUNCTION
    if not by_name or call.name in implemented:
        return own
    return not_run_text(call.name) or own
