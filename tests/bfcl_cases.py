"""Model results for BFCL agreement tests: gold-derived ones and many kinds of wrong ones.

Nothing here decides whether a result is right; the tests ask both evalui and bfcl-eval.
"""

from __future__ import annotations

import copy
import json
import random


def gold_calls(possible_answer: list[dict]) -> list[tuple[str, dict]]:
    """One concrete call per ground-truth function: the first acceptable value, optional ones left out."""
    calls = []
    for item in possible_answer:
        name, params = next(iter(item.items()))
        args = {}
        for param, values in params.items():
            chosen = next((v for v in values if v != ""), "")
            if chosen != "":
                args[param] = _first_choice(chosen)
        calls.append((name, args))
    return calls


def _first_choice(value):
    # Nested dicts in possible answers hold lists of acceptable values per key.
    if isinstance(value, dict):
        return {k: _first_choice(next((x for x in v if x != ""), v[0]) if isinstance(v, list) and v else v) for k, v in value.items()}
    if isinstance(value, list):
        return [_first_choice(v) for v in value]
    return value


def render_value(value, language: str) -> str:
    if language == "python":
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        inner = ", ".join(render_value(v, language) for v in value)
        return f"[{inner}]" if language == "javascript" else f"new ArrayList<>(Arrays.asList({inner}))"
    if isinstance(value, dict):
        if language == "javascript":
            return "{" + ", ".join(f"{k}: {render_value(v, language)}" for k, v in value.items()) + "}"
        puts = " ".join(f"put({json.dumps(k)}, {render_value(v, language)});" for k, v in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return str(value)


def prompt_text(calls: list[tuple[str, dict]], language: str) -> str:
    rendered = []
    for name, args in calls:
        inner = ", ".join(f"{k}={render_value(v, language)}" for k, v in args.items())
        rendered.append(f"{name}({inner})")
    return "[" + ", ".join(rendered) + "]"


def fc_value(value, language: str):
    # FC-mode Java and JavaScript arguments are strings in their language's syntax.
    return value if language == "python" else render_value(value, language)


def fc_result(calls: list[tuple[str, dict]], language: str, underscore_names: bool) -> list[dict]:
    out = []
    for name, args in calls:
        shown = name.replace(".", "_") if underscore_names else name
        out.append({shown: json.dumps({k: fc_value(v, language) for k, v in args.items()})})
    return out


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
