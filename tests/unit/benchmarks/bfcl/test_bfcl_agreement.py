"""evalui's BFCL verdicts must equal bfcl-eval's on the real data, for every single-turn category."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from bfcl_cases import (
    RAW_FC,
    RAW_TEXTS,
    fc_result,
    gold_calls,
    perturbed_calls,
    prompt_text,
)

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.scoring.single_turn import (
    CATEGORIES,
    RELEVANCE_CATEGORIES,
    language_of,
    score_entry,
)

PROMPT_MODEL = "gpt-4o-2024-11-20"  # registered, keeps dotted names
FC_MODEL = "gpt-4o-2024-11-20-FC"  # registered, OpenAI-style underscored names
PERTURBED_ENTRIES_PER_CATEGORY = 60


_HANDLERS = {}


def official_handler(runner, model_name: str):
    """bfcl-eval's handler for a registered model, one per model as `bfcl evaluate` keeps: each new
    one builds an OpenAI client (and loads the CA bundle)."""
    if model_name not in _HANDLERS:
        _HANDLERS[model_name] = runner.get_handler(model_name)
    return _HANDLERS[model_name]


def official_verdict(runner, category, entry, result, model_name):
    from bfcl_eval.constants.enums import Language, ReturnFormat

    handler = official_handler(runner, model_name)
    prompt_entry = {"id": entry.id, "function": copy.deepcopy(entry.functions)}
    if category in RELEVANCE_CATEGORIES:
        return runner._evaluate_single_relevance_entry(
            handler, entry.id, copy.deepcopy(result), prompt_entry, model_name, category
        )
    language = language_of(category)
    return runner._evaluate_single_ast_entry(
        handler,
        entry.id,
        copy.deepcopy(result),
        copy.deepcopy(entry.possible_answer),
        prompt_entry,
        model_name,
        category,
        language={"python": Language.PYTHON, "java": Language.JAVA, "javascript": Language.JAVASCRIPT}[language],
        return_format={
            "python": ReturnFormat.PYTHON,
            "java": ReturnFormat.JAVA,
            "javascript": ReturnFormat.JAVASCRIPT,
        }[language],
        has_tool_call_tag=False,
    )


def relevance_calls(entry, rng):
    """A plausible call to one of the entry's functions, with made-up required arguments."""
    if not entry.functions:  # some live_irrelevance entries offer no function at all
        return [("lookup", {"query": "value"})]
    function = rng.choice(entry.functions)
    args = {}
    for name in function["parameters"].get("required", []):
        kind = function["parameters"]["properties"].get(name, {}).get("type")
        args[name] = {"integer": 3, "float": 1.5, "boolean": True, "array": ["a"], "dict": {"k": "v"}}.get(kind, "value")
    return [(function["name"], args)]


def cases_for(category):
    """(entry, label, result, shape) for gold, perturbed and raw results in both shapes."""
    rng = random.Random(f"agreement-{category}")
    entries = load_category(category)
    language = language_of(category)
    perturbed_ids = {e.id for e in rng.sample(entries, min(PERTURBED_ENTRIES_PER_CATEGORY, len(entries)))}
    for entry in entries:
        if category in RELEVANCE_CATEGORIES:
            calls = relevance_calls(entry, rng)
            variants = [("call", calls), ("no_call", [])]
        else:
            calls = gold_calls(entry.possible_answer)
            variants = [("gold", calls)]
            if entry.id in perturbed_ids:
                variants += perturbed_calls(calls, entry.functions, rng)
        for label, variant in variants:
            yield entry, label, prompt_text(variant, language), "prompt"
            yield entry, label, fc_result(variant, language, underscore_names=True), "fc"
        if entry.id in perturbed_ids:
            for text in RAW_TEXTS:
                yield entry, "raw_text", text, "prompt"
            for raw in RAW_FC:
                yield entry, "raw_fc", raw, "fc"


@pytest.mark.parametrize("category", CATEGORIES)
def test_verdicts_equal_official_checker(category, official_runner):
    compared = Counter()
    disagreements = []
    for entry, label, result, shape in cases_for(category):
        model_name = FC_MODEL if shape == "fc" else PROMPT_MODEL
        reference = official_verdict(official_runner, category, entry, result, model_name)
        ours = score_entry(
            category,
            copy.deepcopy(entry.functions),
            copy.deepcopy(entry.possible_answer),
            copy.deepcopy(result),
            underscore_to_dot=(shape == "fc"),
        )
        compared[(shape, ours.correct)] += 1
        if ours.correct != reference["valid"] or (
            not ours.correct and ours.official_error_type != reference.get("error_type")
        ):
            disagreements.append((entry.id, label, shape, result, ours, reference.get("error_type")))
    assert not disagreements, f"{len(disagreements)} disagreements, first: {disagreements[:3]}"
    # Both verdicts occur in both shapes, so the comparison is not one-sided.
    for shape in ("prompt", "fc"):
        assert compared[(shape, True)] > 0, (category, shape, compared)
        assert compared[(shape, False)] > 0, (category, shape, compared)


def test_gold_results_are_correct_for_python_categories():
    for category in ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple"):
        entries = load_category(category)
        verdicts = [
            score_entry(category, e.functions, e.possible_answer, prompt_text(gold_calls(e.possible_answer), "python")).correct
            for e in entries
        ]
        assert sum(verdicts) / len(verdicts) > 0.97, category


def test_error_types_name_the_mistake():
    entry = load_category("simple_python")[0]
    name, args = gold_calls(entry.possible_answer)[0]
    key = sorted(args)[0]

    def verdict(calls):
        return score_entry("simple_python", entry.functions, entry.possible_answer, prompt_text(calls, "python"))

    assert verdict([(name, args)]).correct
    assert verdict([(name + "x", args)]).error_type == "wrong_function"
    assert verdict([(name, {k: v for k, v in args.items() if k != key})]).error_type == "missing_parameter"
    assert verdict([(name, {**args, "bogus": 1})]).error_type == "unexpected_parameter"
    assert verdict([(name, args), (name, args)]).error_type == "wrong_count"
    wrong = score_entry("simple_python", entry.functions, entry.possible_answer, "Sure, [f(")
    assert wrong.error_type == "decode_failure" and not wrong.correct


def test_int_for_float_accepted_but_not_float_for_int_nor_bool_for_int():
    functions = [
        {
            "name": "area",
            "description": "",
            "parameters": {
                "type": "dict",
                "properties": {"radius": {"type": "float"}, "sides": {"type": "integer"}},
                "required": ["radius", "sides"],
            },
        }
    ]
    answer = [{"area": {"radius": [2.0], "sides": [3]}}]
    assert score_entry("simple_python", functions, answer, "[area(radius=2, sides=3)]").correct
    float_for_int = score_entry("simple_python", functions, answer, "[area(radius=2.0, sides=3.0)]")
    assert float_for_int.error_type == "wrong_type"
    bool_for_int = score_entry("simple_python", functions, answer, "[area(radius=2.0, sides=True)]")
    assert bool_for_int.error_type == "wrong_type"


def test_relevance_categories_judge_presence_of_a_call():
    entry = load_category("irrelevance")[0]
    assert score_entry("irrelevance", entry.functions, None, "I cannot help with that.").correct
    assert score_entry("irrelevance", entry.functions, None, []).correct
    called = score_entry("irrelevance", entry.functions, None, f"[{entry.functions[0]['name']}(x=1)]")
    assert not called.correct and called.error_type == "unexpected_call"
    entry = load_category("live_relevance")[0]
    missing = score_entry("live_relevance", entry.functions, None, "[]")
    assert not missing.correct and missing.error_type == "missing_call"


def test_unknown_category_and_bad_shape_are_rejected():
    with pytest.raises(ValueError, match="unknown BFCL category"):
        score_entry("simple_cobol", [], [], "[]")
    entry = load_category("simple_python")[0]
    odd = score_entry("simple_python", entry.functions, entry.possible_answer, {"f": "{}"})
    assert not odd.correct and odd.error_type == "decode_failure" and "must be a string" in odd.message
