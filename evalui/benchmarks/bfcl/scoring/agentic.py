"""BFCL agentic verdicts (memory and web search), from bfcl-eval's own ``_evaluate_single_agentic_entry``.

The result of an agentic entry is one list (one turn) of every step's raw output. bfcl decodes each
step with the model handler's ``decode_execute``; the last step that does not decode into calls is
the answer, and ``agentic_checker`` looks for a ground-truth answer in it as a whole word. No call is
executed here: decoding only parses (``ast`` in prompt mode, JSON in FC mode), on text already
bounded by the run's step limits.

The handler is bfcl's ``OpenAICompletionsHandler``, the one evalui's requests follow, created
without ``__init__`` because its constructor builds an OpenAI client (and wants a key) that
``decode_execute`` never touches: that method reads ``is_fc_model`` only.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from evalui.benchmarks.bfcl.registry import import_without_provider_sdks
from evalui.benchmarks.bfcl.scoring.official import load_official
from evalui.benchmarks.bfcl.scoring.single_turn import BfclVerdict

AGENTIC_ERROR_TYPES: tuple[str, ...] = ("answer_not_found", "no_last_message", "force_terminated", "wrong_format",
                                        "too_many_calls", "too_large", "too_slow")
_OFFICIAL_TO_EVALUI = {"agentic:answer_not_found": "answer_not_found", "agentic:no_last_message": "no_last_message",
                       "agentic:inference_error": "wrong_format"}


@functools.cache
def _official():
    load_official()
    # bfcl-eval's eval runner, imported with the registry's stand-in: the agentic check never looks
    # a model up, and the real registry imports every provider SDK (seconds of CPU per process; bench/RESULTS.md).
    eval_runner = import_without_provider_sdks("bfcl_eval.eval_checker.eval_runner")
    from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler

    return eval_runner._evaluate_single_agentic_entry, OpenAICompletionsHandler


def _decoder(mode: str):
    _, handler_class = _official()
    handler = object.__new__(handler_class)
    handler.is_fc_model = mode == "fc"
    return handler


def agentic_result_mode(result: Any) -> str:
    """'fc' when a step holds tool calls (a list or an object), else 'prompt'."""
    steps = result[0] if isinstance(result, list) and result and isinstance(result[0], list) else []
    return "fc" if any(isinstance(step, (list, dict)) for step in steps) else "prompt"


def score_agentic(entry_id: str, category: str, result: Any, ground_truth: list[str], mode: str | None = None,
                  *, force_terminated: bool = False) -> BfclVerdict:
    """The official verdict for one agentic result (``[[step outputs]]``); ``force_terminated`` says the
    conversation was stopped at the step limit, which the official check reports as no_last_message."""
    evaluate, _ = _official()
    checked = evaluate(_decoder(mode or agentic_result_mode(result)), entry_id, copy.deepcopy(result),
                       list(ground_truth), {"id": entry_id, "question": []}, "evalui", category)
    if checked.get("valid"):
        return BfclVerdict(True)
    error = checked.get("error") or {}
    official_type = error.get("error_type", "")
    kind = _OFFICIAL_TO_EVALUI.get(official_type, "wrong_format")
    if force_terminated and kind == "no_last_message":
        kind = "force_terminated"
    message = error.get("error_message", "")
    if isinstance(message, list):
        message = " ".join(str(m) for m in message)
    return BfclVerdict(False, kind, str(message), official_type)
