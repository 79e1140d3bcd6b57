"""Results derived from BFCL's possible answers: reference outputs for demos, benchmarks and tests."""

from __future__ import annotations

import json


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
    # Nested dicts in possible answers hold a list of acceptable values per key.
    if isinstance(value, dict):
        return {
            k: _first_choice(next((x for x in v if x != ""), v[0]) if isinstance(v, list) and v else v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_first_choice(v) for v in value]
    return value


def render_value(value, language: str) -> str:
    """A literal in the call syntax of ``language`` (python, java or javascript)."""
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


def prompt_text(calls: list[tuple[str, dict]], language: str = "python") -> str:
    """Prompt-mode text: ``[f(a=1), g(b='x')]``."""
    rendered = []
    for name, args in calls:
        inner = ", ".join(f"{k}={render_value(v, language)}" for k, v in args.items())
        rendered.append(f"{name}({inner})")
    return "[" + ", ".join(rendered) + "]"


def fc_arguments(args: dict, language: str = "python") -> str:
    """FC-mode arguments JSON; Java and JavaScript values are strings in their own syntax
    (a plain string stays as it is, the way a model fills a string-typed parameter)."""
    if language == "python":
        return json.dumps(args)
    return json.dumps({k: v if isinstance(v, str) else render_value(v, language) for k, v in args.items()})


def fc_result(calls: list[tuple[str, dict]], language: str = "python", underscore_names: bool = False) -> list[dict]:
    """FC-mode result: ``[{name: arguments_json}]``."""
    return [
        {(name.replace(".", "_") if underscore_names else name): fc_arguments(args, language)}
        for name, args in calls
    ]
