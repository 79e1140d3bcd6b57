"""BFCL multi-turn: safe decoding of each step, and verdicts from bfcl-eval's own multi_turn_checker.

bfcl-eval executes a call by building a string such as ``cd(folder='x')`` and passing it to
``eval()``. A model that names its call ``__import__('os').system(...)``, or hides code in an
argument name, would run code there. So no model text ever reaches that ``eval()``: every step is
decoded here (prompt text through the AST guard of ``safe_calls``, FC arguments as JSON), each
call's name must be one of the entry's documented functions and a public method of one of its
backend classes, its argument names must be identifiers and its values plain data within limits.
The checker then gets call strings that evalui wrote itself, ``name(arg=repr(value), …)``, and a
refused call becomes a fixed placeholder that fails like an unknown function (so turns keep their
shape). The checker's instances are created under a name unique to the check and removed after it.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from evalui.benchmarks.bfcl.scoring.official import load_official
from evalui.benchmarks.bfcl.scoring.safe_calls import (
    NotACallList,
    UnsafeExpression,
    check_call_arguments,
    check_json_arguments,
    guard_python_calls,
)
from evalui.benchmarks.bfcl.scoring.single_turn import BfclVerdict

# The stateful in-memory backends of the four multi-turn categories. Others that bfcl-eval maps
# (web search, memory) reach the network or the disk, and are never built here.
BACKEND_CLASSES = ("GorillaFileSystem", "MathAPI", "MessageAPI", "TwitterAPI", "TicketAPI", "TradingBot",
                   "TravelAPI", "VehicleControlAPI")
# Refused calls are handed to the checker as this: no such function exists, so executing it fails
# the way an unknown function fails upstream, and nothing runs.
REFUSED_CALL = "evalui_refused_call()"

ERROR_TYPES: tuple[str, ...] = ("refused_call", "decode_failure", "missing_calls", "response_mismatch",
                                "state_mismatch", "force_terminated", "wrong_format",
                                # evalui's own limits: a call or a check past its deadline, a worker that
                                # died, a step or a sample past its size caps, a sample past its call time
                                "call_timeout", "execution_timeout", "execution_failed", "too_many_calls",
                                "too_large", "too_slow")
_OFFICIAL_TO_EVALUI = {
    "multi_turn:instance_state_mismatch": "state_mismatch",
    "multi_turn:execution_response_mismatch": "response_mismatch",
    "multi_turn:empty_turn_model_response": "missing_calls",
    "multi_turn:force_terminated": "force_terminated",
    "multi_turn:inference_error": "wrong_format",
}


NOT_ENTRY_FUNCTION = "not one of the entry's functions"


@dataclass(frozen=True)
class DecodedCall:
    name: str
    arguments: dict
    refused: str = ""  # why evalui will not run it; empty for a call that may run

    def call_text(self) -> str:
        """The string the official checker executes: written by evalui, from checked parts only."""
        if self.refused:
            return REFUSED_CALL
        return f"{self.name}({','.join(f'{k}={v!r}' for k, v in self.arguments.items())})"

    def shown(self) -> str:
        """For people: the call as the model wrote it (a refused name included), never executed."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items()) if isinstance(self.arguments, dict) else ""
        return f"{self.name[:200]}({args[:2000]})"


class StepDecodeError(ValueError):
    """The step's output is not a list of calls: upstream ends the turn here, and skips it when scoring."""


@functools.cache
def backend_class(class_name: str) -> type:
    if class_name not in BACKEND_CLASSES:
        raise ValueError(f"{class_name} is not a multi-turn backend evalui runs")
    load_official()  # sets BFCL_PROJECT_ROOT before bfcl_eval modules are imported
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    return getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[class_name]), class_name)


def public_methods(class_name: str) -> frozenset[str]:
    return frozenset(name for name, _ in inspect.getmembers(backend_class(class_name), inspect.isfunction)
                     if not name.startswith("_"))


def allowed_names(functions: list[dict], missed_function: dict | None, involved_classes) -> frozenset[str]:
    """Documented functions of the entry (held-out ones included) that a backend class implements."""
    documented = {f["name"] for f in functions}
    for held_out in (missed_function or {}).values():
        documented |= {f["name"] if isinstance(f, dict) else f for f in held_out}
    implemented = frozenset().union(*(public_methods(c) for c in involved_classes)) if involved_classes else frozenset()
    return frozenset(documented & implemented)


def _checked(name: Any, arguments: Any, allowed: frozenset[str]) -> DecodedCall:
    if not isinstance(arguments, dict):
        raise StepDecodeError(f"the arguments of {str(name)[:80]!r} are not an object")
    if name not in allowed:
        return DecodedCall(str(name), arguments, NOT_ENTRY_FUNCTION)
    try:
        check_call_arguments(arguments)
    except UnsafeExpression as exc:
        return DecodedCall(name, arguments, str(exc))
    return DecodedCall(name, arguments)


def decode_step(raw: Any, mode: str, allowed: frozenset[str]) -> list[DecodedCall]:
    """The calls of one step, as upstream's ``decode_execute`` reads them, checked for execution.

    Raises StepDecodeError where upstream's decoder fails (the turn ends there), and
    UnsafeExpression for prompt text the AST guard refuses (treated the same way, never run).
    """
    if mode == "fc":
        if isinstance(raw, dict):
            raw = [raw]
        if not isinstance(raw, list):
            raise StepDecodeError("the model answered with text, not tool calls")
        calls = []
        for invoked in raw:
            if not isinstance(invoked, dict):
                raise StepDecodeError("a tool call is not an object")
            for name, arguments in invoked.items():
                if isinstance(arguments, str):
                    try:
                        check_json_arguments(arguments)
                    except UnsafeExpression as exc:  # too large to read: refused, never run
                        calls.append(DecodedCall(str(name), {}, str(exc)))
                        continue
                    try:
                        arguments = json.loads(arguments)
                    except ValueError as exc:
                        raise StepDecodeError(f"arguments are not JSON: {exc}") from None
                calls.append(_checked(name, arguments, allowed))
        return calls
    if not isinstance(raw, str):
        raise StepDecodeError("a prompt-mode step must be text")
    try:
        guarded = guard_python_calls(raw)
    except NotACallList as exc:
        raise StepDecodeError(str(exc)) from None
    official = load_official()
    try:
        decoded = official.decode_prompting(guarded, official.return_format.PYTHON, False)
    except Exception as exc:  # upstream ends the turn on any decoder error
        raise StepDecodeError(f"failed to decode: {exc}") from None
    calls = []
    for item in decoded:
        if not isinstance(item, dict):
            raise StepDecodeError("a decoded call is not an object")
        for name, arguments in item.items():
            calls.append(_checked(name, arguments, allowed))
    return calls


def decoded_turns(result: list, mode: str, allowed: frozenset[str]) -> tuple[list[list[list[str]]], list[list[list[DecodedCall] | None]]]:
    """Per turn, per step: the call strings the checker gets (undecodable and empty steps left out,
    as upstream's evaluator leaves them out), and every step's decoded calls (None: an attempted
    call that did not decode)."""
    for_checker, per_step = [], []
    for turn in result:
        checker_turn, steps = [], []
        for raw in turn if isinstance(turn, list) else []:
            try:
                calls = decode_step(raw, mode, allowed)
            except (StepDecodeError, UnsafeExpression):
                # None: an attempted call that failed to decode; []: the model answered in words.
                steps.append(None if _attempted_call(raw, mode) else [])
                continue
            steps.append(calls)
            if calls:
                checker_turn.append([c.call_text() for c in calls])
        for_checker.append(checker_turn)
        per_step.append(steps)
    return for_checker, per_step


def _attempted_call(raw: Any, mode: str) -> bool:
    """Whether an undecodable step looks like a call (rather than the words that end a turn)."""
    if mode == "fc":
        return not isinstance(raw, str)
    return isinstance(raw, str) and "(" in raw


def result_mode(result: Any) -> str:
    """'fc' when any step is a list of tool calls, else 'prompt' (every step is text)."""
    steps = [step for turn in result if isinstance(turn, list) for step in turn] if isinstance(result, list) else []
    return "fc" if any(isinstance(s, (list, dict)) for s in steps) else "prompt"


@dataclass(frozen=True)
class MultiTurnVerdict(BfclVerdict):
    """The single-turn verdict's fields, and where and how a conversation went wrong."""

    failed_turn: int | None = None
    state_differences: dict = field(default_factory=dict)  # class -> attribute -> {"model", "ground_truth"}
    refused_calls: int = 0

    def as_dict(self) -> dict:
        return {**super().as_dict(), "failed_turn": self.failed_turn, "state_differences": self.state_differences,
                "refused_calls": self.refused_calls}


def score_multi_turn(entry: dict, ground_truth: list[list[str]], result: Any, mode: str | None = None) -> MultiTurnVerdict:
    """The official verdict for one multi-turn result (one list per turn of each step's raw output).

    ``entry`` has ``id``, ``function``, ``involved_classes``, ``initial_config`` and, for miss_func,
    ``missed_function`` (turn -> docs or names).
    """
    if not isinstance(result, list) or not all(isinstance(turn, list) for turn in result):
        return MultiTurnVerdict(False, "wrong_format", "The result is not one list of steps per turn.",
                                "multi_turn:inference_error")
    if len(result) != len(ground_truth):
        return MultiTurnVerdict(False, "force_terminated",
                                f"The result has {len(result)} turns and the ground truth {len(ground_truth)}: the "
                                f"conversation was cut short (force-terminated) or does not belong to this entry.",
                                "multi_turn:force_terminated")
    involved = [c for c in entry["involved_classes"]]
    unknown = [c for c in involved if c not in BACKEND_CLASSES]
    if unknown:
        raise ValueError(f"entry {entry['id']} needs backends evalui does not run: {', '.join(unknown)}")
    allowed = allowed_names(entry["function"], entry.get("missed_function"), involved)
    for_checker, per_step = decoded_turns(result, mode or result_mode(result), allowed)
    refused = sum(1 for turn in per_step for calls in turn if calls for c in calls if c.refused)
    checked = run_official_checker(entry, ground_truth, for_checker)
    if checked.get("valid"):
        return MultiTurnVerdict(True, refused_calls=refused)
    official_type = checked.get("error_type", "")
    message = str(checked.get("error_message", ""))
    turn = failed_turn(checked)
    return MultiTurnVerdict(False, classify(official_type, per_step, turn), message, official_type,
                            failed_turn=turn, state_differences=state_differences(checked), refused_calls=refused)


def run_official_checker(entry: dict, ground_truth: list, for_checker: list) -> dict:
    """bfcl-eval's multi_turn_checker on checked call strings, with instances of its own, freed after."""
    load_official()
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    # Upstream caches instances in its module globals under the model name and entry id; a name
    # unique to this check means a fresh start, and removing its names afterwards frees them.
    owner = f"evalui_{uuid.uuid4().hex}"
    test_entry = {"id": entry["id"], "initial_config": entry.get("initial_config") or {},
                  "involved_classes": list(entry["involved_classes"])}
    category = entry["id"].rsplit("_", 1)[0]
    try:
        return multi_turn_checker(for_checker, ground_truth, test_entry, category, owner)
    finally:
        cache = vars(multi_turn_utils)
        for name in [n for n in list(cache) if n.startswith(owner)]:
            cache.pop(name, None)


def failed_turn(checked: dict) -> int | None:
    found = re.search(r"for turn (\d+)", str(checked.get("error_message", "")))
    if found:
        return int(found.group(1))
    executed = checked.get("execution_result")
    return len(executed) - 1 if isinstance(executed, list) and executed else None


def classify(official_type: str, per_step: list, turn: int | None) -> str:
    kind = _OFFICIAL_TO_EVALUI.get(official_type, "state_mismatch")
    if turn is None or turn >= len(per_step):
        return kind
    steps = per_step[turn]
    if any(c.refused for calls in steps if calls for c in calls):
        return "refused_call"
    if kind in ("missing_calls", "response_mismatch") and steps and not any(steps) and None in steps:
        return "decode_failure"  # the turn's only output could not be decoded
    return kind


def _shown(value: Any, limit: int = 2_000) -> Any:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)  # backend objects (a file system's directories) show as their own repr
    return text if len(text) <= limit else text[:limit] + "…"


def state_differences(checked: dict) -> dict:
    """The attributes where the model's backend state differs from the gold one, as text."""
    differences = (checked.get("details") or {}).get("differences") or {}
    if not differences:
        return {}
    class_name = re.search(r"Model instance for (\w+)", str(checked.get("error_message", "")))
    return {class_name.group(1) if class_name else "backend": {
        attribute: {"model": _shown(values.get("model")), "ground_truth": _shown(values.get("ground_truth"))}
        for attribute, values in differences.items()}}

