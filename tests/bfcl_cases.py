"""Model results for BFCL agreement tests: gold-derived ones and many kinds of wrong ones.

Nothing here decides whether a result is right; the tests ask both evalui and bfcl-eval.
"""

from __future__ import annotations

import copy
import random

from evalui.benchmarks.bfcl.gold import fc_result, gold_calls, prompt_text  # noqa: F401  (re-exported for tests)


def _changed_value(value, rng: random.Random):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice([1, 7, -3])
    if isinstance(value, float):
        return value * 2 + 1.5
    if isinstance(value, str):
        return value + "_wrong" if value else "unexpected"
    if isinstance(value, list):
        return value + [value[0]] if value else ["extra"]
    if isinstance(value, dict):
        return {**value, "zz_extra": 1}
    return "changed"


def _retyped_value(value):
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return float(value) + 0.5 if value % 2 else str(value)
    if isinstance(value, float):
        return str(value)
    if isinstance(value, str):
        return 12345
    if isinstance(value, list):
        return tuple(value) if value else "[]"
    return [value]


def perturbed_calls(calls: list[tuple[str, dict]], functions: list[dict], rng: random.Random):
    """(label, calls) for each kind of mistake that makes sense for this entry."""
    variants = []
    if not calls:
        return variants
    index = rng.randrange(len(calls))
    name, args = calls[index]

    def replace(new_name, new_args):
        changed = copy.deepcopy(calls)
        changed[index] = (new_name, new_args)
        return changed

    variants.append(("wrong_function", replace(name + "_v2", args)))
    other = [f["name"] for f in functions if f["name"] != name]
    if other:
        variants.append(("other_function", replace(rng.choice(other), args)))
    if args:
        key = rng.choice(sorted(args))
        variants.append(("drop_param", replace(name, {k: v for k, v in args.items() if k != key})))
        variants.append(("changed_value", replace(name, {**args, key: _changed_value(args[key], rng)})))
        variants.append(("retyped_value", replace(name, {**args, key: _retyped_value(args[key])})))
        if isinstance(args[key], str) and args[key]:
            # BFCL forgives case and some punctuation in strings.
            variants.append(("string_case", replace(name, {**args, key: args[key].upper() + "."})))
        if isinstance(args[key], int) and not isinstance(args[key], bool):
            variants.append(("int_as_float", replace(name, {**args, key: float(args[key])})))
    variants.append(("unexpected_param", replace(name, {**args, "zz_unexpected": "x"})))
    function = next((f for f in functions if f["name"] == name), None)
    if function:
        optional = sorted(set(function["parameters"].get("properties", {})) - set(args))
        if optional:
            key = rng.choice(optional)
            variants.append(("added_optional", replace(name, {**args, key: "default"})))
    variants.append(("duplicated_call", calls + [calls[index]]))
    if len(calls) > 1:
        variants.append(("reordered", list(reversed(calls))))
        variants.append(("missing_call", calls[:-1]))
    return variants


RAW_TEXTS = [
    "[]",
    "[{}]",
    "I am sorry, none of the functions can help with that.",
    "```python\n[get_weather(city='Paris')]\n```",
    "Sure! Here you go: [get_weather(city='Paris')]",
    "[get_weather(city='Paris'",
    "get_weather(city='Paris')",
    "[1, 2, 3]",
    "",
]

RAW_FC = [
    [],
    [{}],
    [{"get_weather": "{not json"}],
    [{"get_weather": "[]"}],
    [{"get_weather": '"Paris"'}],
]
