"""Score every single-turn BFCL line (gold-derived results) with evalui and with bfcl-eval's
own per-entry evaluation, in one process, and print both times and their ratio.

Target: evalui is no slower than the official checker (ratio <= 1.0 within noise).
Run: make bench   (or .venv/bin/python bench/bfcl_scoring.py)
"""

from __future__ import annotations

import os
import time

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.gold import gold_calls, prompt_text
from evalui.benchmarks.bfcl.scoring.official import load_official
from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES, RELEVANCE_CATEGORIES, language_of, score_entry

REPEATS = 3
MODEL = "gpt-4o-2024-11-20"


def gold_lines():
    lines = []
    for category in CATEGORIES:
        for entry in load_category(category):
            if category in RELEVANCE_CATEGORIES:
                text = "[]" if "irrelevance" in category else f"[{entry.functions[0]['name']}()]"
            else:
                text = prompt_text(gold_calls(entry.possible_answer), language_of(category))
            lines.append((category, entry, text))
    return lines


def with_evalui(lines):
    return sum(score_entry(c, e.functions, e.possible_answer, text).correct for c, e, text in lines)


def with_official(lines):
    from bfcl_eval.constants.enums import Language, ReturnFormat
    from bfcl_eval.eval_checker import eval_runner

    handler = eval_runner.get_handler(MODEL)
    languages = {"python": (Language.PYTHON, ReturnFormat.PYTHON), "java": (Language.JAVA, ReturnFormat.JAVA),
                 "javascript": (Language.JAVASCRIPT, ReturnFormat.JAVASCRIPT)}
    correct = 0
    for category, entry, text in lines:
        prompt_entry = {"id": entry.id, "function": entry.functions}
        if category in RELEVANCE_CATEGORIES:
            verdict = eval_runner._evaluate_single_relevance_entry(handler, entry.id, text, prompt_entry, MODEL, category)
        else:
            language, return_format = languages[language_of(category)]
            verdict = eval_runner._evaluate_single_ast_entry(
                handler, entry.id, text, entry.possible_answer, prompt_entry, MODEL, category,
                language=language, return_format=return_format, has_tool_call_tag=False,
            )
        correct += verdict["valid"]
    return correct


def best_time(function, lines):
    times, result = [], None
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = function(lines)
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-real-key")
    load_official()
    lines = gold_lines()
    with_official(lines[:50]), with_evalui(lines[:50])  # warm both paths
    official_s, official_correct = best_time(with_official, lines)
    evalui_s, evalui_correct = best_time(with_evalui, lines)
    print(f"lines scored        : {len(lines)} (13 single-turn categories, gold-derived)")
    print(f"correct (official)  : {official_correct}")
    print(f"correct (evalui)    : {evalui_correct}")
    print(f"official checker    : {official_s:.3f} s (best of {REPEATS})")
    print(f"evalui              : {evalui_s:.3f} s (best of {REPEATS})")
    print(f"ratio evalui/official: {evalui_s / official_s:.3f} (target <= 1.0)")


if __name__ == "__main__":
    main()
