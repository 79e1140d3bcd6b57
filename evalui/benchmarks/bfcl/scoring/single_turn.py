"""BFCL single-turn verdicts, identical to bfcl-eval's AST checker.

A model result comes in one of two shapes:
- prompt mode: the raw text, e.g. ``[get_weather(city="Paris")]``;
- FC mode: a list of ``{function_name: arguments_json}``.

Decoding and checking are bfcl-eval's own functions; this module chooses them exactly as
``bfcl evaluate`` does, and turns the checker's error codes into a small, stable set that
the UI and reports group by.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from evalui.benchmarks.bfcl.scoring.official import load_official
from evalui.benchmarks.bfcl.scoring.safe_calls import (
    NotACallList,
    UnsafeExpression,
    check_json_arguments,
    check_size,
    guard_python_calls,
)

CATEGORIES: tuple[str, ...] = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
)
RELEVANCE_CATEGORIES = frozenset({"irrelevance", "live_irrelevance", "live_relevance"})
# Conversations executed against stateful backends; judged by evalui.benchmarks.bfcl.scoring.multi_turn.
MULTI_TURN_CATEGORIES: tuple[str, ...] = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
# Memory and web search: conversations on a memory store or the web, judged by evalui.benchmarks.bfcl.scoring.agentic.
MEMORY_CATEGORIES: tuple[str, ...] = ("memory_kv", "memory_vector", "memory_rec_sum")
WEB_SEARCH_CATEGORIES: tuple[str, ...] = ("web_search_base", "web_search_no_snippet")
AGENTIC_CATEGORIES: tuple[str, ...] = MEMORY_CATEGORIES + WEB_SEARCH_CATEGORIES
# Prompt mode only: 200 official entries, each asked in 26 prompt formats (scoring.format_sensitivity).
FORMAT_SENSITIVITY_CATEGORIES: tuple[str, ...] = ("format_sensitivity",)
ALL_CATEGORIES: tuple[str, ...] = CATEGORIES + MULTI_TURN_CATEGORIES + AGENTIC_CATEGORIES + FORMAT_SENSITIVITY_CATEGORIES

# The error types evalui reports, in the order the UI lists them.
ERROR_TYPES: tuple[str, ...] = (
    "unsafe_expression",
    "decode_failure",
    "wrong_format",
    "wrong_function",
    "missing_parameter",
    "unexpected_parameter",
    "wrong_type",
    "wrong_value",
    "wrong_count",
    "unexpected_call",
    "missing_call",
    # an uploaded line whose check ran past its deadline in the worker, or whose worker died
    "execution_timeout",
    "execution_failed",
)


@dataclass(frozen=True)
class BfclVerdict:
    correct: bool
    error_type: str | None = None
    message: str = ""
    official_error_type: str | None = None
    decoded: Any = field(default=None, compare=False)

    def as_dict(self) -> dict:
        return {
            "correct": self.correct,
            "error_type": self.error_type,
            "error": self.message,
            "official_error_type": self.official_error_type,
        }


def language_of(category: str) -> str:
    if category.endswith("java"):
        return "java"
    if category.endswith("javascript"):
        return "javascript"
    return "python"


def result_shape(result: Any) -> str:
    """'prompt' for raw text, 'fc' for a list of {name: arguments_json}."""
    if isinstance(result, str):
        return "prompt"
    if isinstance(result, list):
        return "fc"
    raise ValueError(
        f"a result must be a string (prompt mode) or a list of {{name: arguments_json}} (FC mode), "
        f"not {type(result).__name__}"
    )


def decode_fc(result: list) -> list[dict]:
    """FC-mode decoding as bfcl-eval's FC handlers do it: the first key of each item, json-decoded."""
    decoded = []
    for invoked in result:
        name = list(invoked.keys())[0]
        check_json_arguments(invoked[name])
        decoded.append({name: json.loads(invoked[name])})
    return decoded


def decode_result(result: Any, category: str, mode: str | None = None) -> list:
    """Decode a model result to ``[{name: {param: value}}]``; raises on a decode failure.

    ``mode`` is "fc" or "prompt"; by default it follows the result's shape. An FC run whose model
    answered in plain text decodes in FC mode, and so fails, exactly as upstream.
    """
    official = load_official()
    if (mode or result_shape(result)) == "fc":
        return decode_fc(result)
    # Relevance checks decode as Python whatever the category, as the official runner does.
    language = "python" if category in RELEVANCE_CATEGORIES else language_of(category)
    if not isinstance(result, str):
        raise NotACallList("a prompt-mode result must be text")
    # bfcl-eval's Python decoder eval()s parts of the text: it only ever sees guarded text.
    result = guard_python_calls(result) if language == "python" else (check_size(result) or result)
    return_format = {
        "python": official.return_format.PYTHON,
        "java": official.return_format.JAVA,
        "javascript": official.return_format.JAVASCRIPT,
    }[language]
    return official.decode_prompting(result, return_format, False)


def score_relevance(category: str, result: Any, mode: str | None = None) -> BfclVerdict:
    official = load_official()
    decoded = None
    try:
        decoded = decode_result(result, category, mode)
        has_call = not official.is_empty_output(decoded)
        detail = "" if has_call else "decoded, but holds no function call"
    except UnsafeExpression as exc:
        return unsafe_verdict(exc)
    except Exception as exc:  # any decoder error means "no call", exactly as upstream
        has_call = False
        detail = f"decoding failed: {exc}"
    if "irrelevance" in category:
        if not has_call:
            return BfclVerdict(True, decoded=decoded)
        return BfclVerdict(
            False,
            "unexpected_call",
            "A function was called although none of the functions is relevant.",
            "irrelevance_error:decoder_success",
            decoded,
        )
    if has_call:
        return BfclVerdict(True, decoded=decoded)
    return BfclVerdict(
        False,
        "missing_call",
        f"No function call although one was expected ({detail}).",
        "relevance_error:decoder_failed",
        decoded,
    )


def unsafe_verdict(exc: UnsafeExpression) -> BfclVerdict:
    """Wrong, and never run: the text would have been executed by the official decoder."""
    return BfclVerdict(False, "unsafe_expression", f"Not decoded: {exc}. Nothing in it was run.", "unsafe_expression")


def score_entry(
    category: str,
    functions: list[dict],
    possible_answer: list[dict] | None,
    result: Any,
    *,
    underscore_to_dot: bool = False,
    mode: str | None = None,
) -> BfclVerdict:
    """Judge one model result for one BFCL entry.

    ``functions`` is the entry's ``function`` list, ``possible_answer`` its ``ground_truth``
    (None for the relevance categories). ``underscore_to_dot`` says the model saw dotted
    function names rewritten with underscores, as OpenAI-style FC handlers do. ``mode``
    forces "fc" or "prompt" decoding instead of inferring it from the result's shape.
    """
    if category not in CATEGORIES:
        raise ValueError(f"unknown BFCL category {category!r}; expected one of {', '.join(CATEGORIES)}")
    if category in RELEVANCE_CATEGORIES:
        return score_relevance(category, result, mode)

    official = load_official()
    try:
        decoded = decode_result(result, category, mode)
    except UnsafeExpression as exc:
        return unsafe_verdict(exc)
    except Exception as exc:
        return BfclVerdict(
            False, "decode_failure", f"Failed to decode the calls: {exc}", "ast_decoder:decoder_failed"
        )
    if not official.is_function_calling_format(decoded):
        return BfclVerdict(
            False,
            "wrong_format",
            "Decoded output is not a list of {function: {parameter: value}}.",
            "ast_decoder:decoder_wrong_output_format",
            decoded,
        )
    language = {
        "python": official.language.PYTHON,
        "java": official.language.JAVA,
        "javascript": official.language.JAVASCRIPT,
    }[language_of(category)]
    checked = official.ast_checker(
        functions,
        decoded,
        possible_answer,
        language,
        category,
        official.checker_model_name(underscore_to_dot),
    )
    if checked["valid"]:
        return BfclVerdict(True, decoded=decoded)
    official_type = checked.get("error_type", "")
    message = " ".join(str(e) for e in checked.get("error", []))
    return BfclVerdict(
        False,
        classify_official_error(official_type, decoded, possible_answer, underscore_to_dot),
        message,
        official_type,
        decoded,
    )


def classify_official_error(
    official_type: str, decoded: list, possible_answer: list | None, underscore_to_dot: bool
) -> str:
    kind = official_type.split(":")[-1]
    if official_type.startswith("type_error"):
        return "wrong_type"
    if official_type.startswith("value_error") or kind == "unclear":
        return "wrong_value"
    if kind == "wrong_func_name":
        return "wrong_function"
    if kind in ("missing_required", "missing_optional"):
        return "missing_parameter"
    if kind == "unexpected_param":
        return "unexpected_parameter"
    if kind == "wrong_count":
        return "wrong_count"
    if kind == "cannot_find_match":
        # The parallel checker only says "no match"; name the likelier cause.
        wanted = {_expected_name(next(iter(g)), underscore_to_dot) for g in possible_answer or []}
        called = {next(iter(call)) for call in decoded}
        return "wrong_function" if called != wanted else "wrong_value"
    return "wrong_value"


def _expected_name(name: str, underscore_to_dot: bool) -> str:
    return name.replace(".", "_") if underscore_to_dot else name
