"""BFCL format sensitivity: verdicts per prompt configuration, and the spread across them, as
``bfcl evaluate`` computes them (``format_sensitivity_runner`` in ``eval_checker/eval_runner.py``).

An entry's id names its configuration: ``format_sensitivity_<n>:<config>:<original id>``, the config
being ``ret_fmt=…&tool_call_tag=…&func_doc_fmt=…&prompt_fmt=…&style=…``. The return format picks
bfcl's decoder (Python calls, JSON, verbose or concise XML) and the tool-call tag says whether the
calls must sit in ``<TOOLCALL>…</TOOLCALL>``; the AST checker then judges the decoded calls against
the original entry's answer, in the original category's way (simple, multiple, parallel), which
bfcl reads from the original id.

bfcl's Python decoder ``eval()``s parts of the text; here it only sees text whose exact source was
checked by ``safe_calls`` first. Its JSON and XML decoders execute nothing (json, ElementTree inside
``<functions>``, ``ast.literal_eval``), so their input is only held to the size limits.
"""

from __future__ import annotations

import functools
import re
import statistics
from collections.abc import Iterable
from typing import Any

from evalui.benchmarks.bfcl.scoring.official import load_official
from evalui.benchmarks.bfcl.scoring.safe_calls import (
    NotACallList,
    UnsafeExpression,
    check_size,
    guard_python_calls,
    guard_python_source,
)
from evalui.benchmarks.bfcl.scoring.single_turn import BfclVerdict, classify_official_error, unsafe_verdict

CATEGORY = "format_sensitivity"
_TOOL_CALL = re.compile(r"<TOOLCALL>(.*?)</TOOLCALL>", re.DOTALL)  # bfcl's ast_parse


def _utils():
    load_official()  # sets BFCL_PROJECT_ROOT before bfcl_eval.utils is imported
    from bfcl_eval import utils
    from bfcl_eval.model_handler import utils as handler_utils

    return utils, handler_utils


@functools.cache
def configurations() -> tuple[str, ...]:
    """The 26 official configurations, in bfcl's order (the CSV's columns)."""
    return tuple(_utils()[0].get_all_format_sensitivity_configs())


def split_id(entry_id: str) -> tuple[str, str]:
    """(configuration, original id) of a format-sensitivity id."""
    parts = entry_id.split(":")
    if len(parts) != 3 or not parts[0].startswith(CATEGORY + "_"):
        raise ValueError(f"{entry_id!r} is not a format-sensitivity id (format_sensitivity_<n>:<config>:<id>)")
    return parts[1], parts[2]


@functools.cache
def parse_configuration(config: str) -> dict:
    """bfcl's ``parse_prompt_variation_params``, by name."""
    return_format, tag, doc_format, prompt_format, style = _utils()[1].parse_prompt_variation_params(config)
    return {"return_format": return_format, "tool_call_tag": tag, "function_doc_format": doc_format,
            "prompt_format": prompt_format, "style": style}


def short_name(config: str) -> str:
    """A label for charts: ``python·tag·doc=json`` (plus ``markdown`` / ``experimental``)."""
    p = parse_configuration(config)
    parts = [p["return_format"], "tag" if p["tool_call_tag"] else "no tag", f"doc={p['function_doc_format']}"]
    parts += [x for x in (p["prompt_format"], p["style"]) if x not in ("plaintext", "classic")]
    return " · ".join(parts)


def _decode_python_tagged(text: str, decode, python) -> list:
    """``default_decode_ast_prompting(text, PYTHON, True)``, its ``eval()`` shown only checked text.

    bfcl parses the inside of the tag exactly as ``S`` below (no brackets added), so that very
    source is checked; the few string steps before it are bfcl's, line for line."""
    stripped = text.strip("`\n ")
    if not stripped.startswith("["):
        stripped = "[" + stripped
    if not stripped.endswith("]"):
        stripped = stripped + "]"
    match = _TOOL_CALL.search(stripped)
    if not match:
        return decode(text, python, True)  # raises "No tool call tag found", as bfcl does, running nothing
    source = match.group(1).strip().strip().strip("'")
    checked = guard_python_source(source)
    if checked == source:
        return decode(text, python, True)
    # Arithmetic was computed by the guard: bfcl gets the same calls with the results in place.
    return decode(f"<TOOLCALL>{checked}</TOOLCALL>", python, True)


def decode(result: Any, config: str) -> list:
    """The calls in ``result`` as bfcl's prompting handler decodes them for ``config``; raises on a
    decode failure (and UnsafeExpression for text the official decoder would execute)."""
    official = load_official()
    if not isinstance(result, str):
        raise NotACallList("a prompt-mode result must be text")
    params = parse_configuration(config)
    return_format = official.return_format(params["return_format"])
    tagged = params["tool_call_tag"]
    if return_format is official.return_format.PYTHON:
        if tagged:
            check_size(result)
            return _decode_python_tagged(result, official.decode_prompting, return_format)
        return official.decode_prompting(guard_python_calls(result), return_format, False)
    check_size(result)
    return official.decode_prompting(result, return_format, tagged)


def score(entry_id: str, functions: list[dict], possible_answer: list[dict], result: Any) -> BfclVerdict:
    """One entry's verdict, as ``format_sensitivity_runner`` gives it (``_evaluate_single_ast_entry``
    with the configuration's return format and tag, the Python AST checker, the original id as the
    category, a prompting model's name)."""
    config, original_id = split_id(entry_id)
    official = load_official()
    try:
        decoded = decode(result, config)
    except UnsafeExpression as exc:
        return unsafe_verdict(exc)
    except Exception as exc:
        return BfclVerdict(False, "decode_failure", f"Failed to decode the calls: {exc}", "ast_decoder:decoder_failed")
    if not official.is_function_calling_format(decoded):
        return BfclVerdict(False, "wrong_format", "Decoded output is not a list of {function: {parameter: value}}.",
                           "ast_decoder:decoder_wrong_output_format", decoded)
    checked = official.ast_checker(functions, decoded, possible_answer, official.language.PYTHON, original_id,
                                   official.checker_model_name(False))
    if checked["valid"]:
        return BfclVerdict(True, decoded=decoded)
    official_type = checked.get("error_type", "")
    return BfclVerdict(False, classify_official_error(official_type, decoded, possible_answer, False),
                       " ".join(str(e) for e in checked.get("error", [])), official_type, decoded)


def statistics_of(verdicts: Iterable[tuple[str, bool]]) -> dict:
    """The score file's header that ``format_sensitivity_runner`` writes, from (id, correct) pairs:
    ``accuracy``, ``correct_count``, ``total_count``, ``accuracy_max_delta`` and ``accuracy_std``
    (percentage points, rounded to 2 places), ``accuracy_variance``, and one
    ``{"accuracy", "correct_count", "total_count"}`` per configuration run, in the order met.

    The computation is bfcl's, line for line: it lives inside that runner, which also decodes and
    writes files, so it cannot be called on verdicts alone."""
    config_stats: dict[str, dict[str, int]] = {}
    correct_count = total = 0
    for entry_id, correct in verdicts:
        stats = config_stats.setdefault(split_id(entry_id)[0], {"correct": 0, "total": 0})
        stats["total"] += 1
        total += 1
        if correct:
            stats["correct"] += 1
            correct_count += 1
    by_config = {cfg: {"accuracy": s["correct"] / s["total"], "correct_count": s["correct"], "total_count": s["total"]}
                 for cfg, s in config_stats.items()}
    accuracies = [v["accuracy"] for v in by_config.values()]
    if len(accuracies) > 1:
        variance = round(statistics.variance(accuracies) * 100**2, 2)
        std = round(statistics.stdev(accuracies) * 100, 2)
        max_delta = round((max(accuracies) - min(accuracies)) * 100, 2)
    else:
        variance = std = max_delta = 0.0
    return {"accuracy": correct_count / total if total else 0.0, "correct_count": correct_count, "total_count": total,
            "accuracy_max_delta": max_delta, "accuracy_variance": variance, "accuracy_std": std, **by_config}
