"""AIME answers: integers from 0 to 999, compared as integers, so "025" and "25.0" equal 25.

String comparison (lm-eval-harness) counts "025" wrong, and math-verify reads a response with two
boxes as a set; an AIME answer is one integer, so it is extracted and compared as one.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

AIME_MIN, AIME_MAX = 0, 999

_ANSWER_IS = re.compile(r"answer\s*(?:is|:|=)\s*\$?\s*(?:\\boxed\{)?\s*([-+]?\d[\d,]*(?:\.\d+)?)", re.IGNORECASE)
_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")


def last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` (or ``\\fbox{...}``), braces balanced."""
    start = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    if start < 0:
        return None
    open_brace = text.find("{", start)
    if open_brace < 0:
        return None
    depth = 0
    for index in range(open_brace, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return text[open_brace + 1 : index]
    return None


def to_aime_integer(value: object) -> int | None:
    """An integer in [0, 999] when ``value`` denotes one exactly, else None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = Decimal(value)
    else:
        text = str(value).strip()
        text = re.sub(r"\\(?:text|mathrm|mathbf)\{([^{}]*)\}", r"\1", text)
        text = text.replace("$", "").replace("\\!", "").replace("{,}", "").replace(",", "").strip()
        text = text.rstrip(".") if re.fullmatch(r"[-+]?\d+\.", text) else text
        try:
            number = Decimal(text)
        except InvalidOperation:
            number = _fraction_value(text)
            if number is None:
                return None
    if number != number.to_integral_value():
        return None
    integer = int(number)
    return integer if AIME_MIN <= integer <= AIME_MAX else None


_FRACTION = re.compile(r"^\\[dt]?frac\{\s*([-+]?\d+)\s*\}\{\s*(\d+)\s*\}$")


def _fraction_value(latex: str) -> Decimal | None:
    """Exact value of ``\\frac{a}{b}``; AIME answers never need more algebra than that."""
    match = _FRACTION.match(latex)
    if not match or int(match.group(2)) == 0:
        return None
    return Decimal(int(match.group(1))) / Decimal(int(match.group(2)))


def extract_aime_answer(response: str | None) -> int | None:
    """The integer answer a response commits to: last ``\\boxed{}``, then "the answer is", then the last number."""
    if not response:
        return None
    boxed = last_boxed(response)
    if boxed is not None:
        return to_aime_integer(boxed)
    stated = _ANSWER_IS.findall(response)
    if stated:
        return to_aime_integer(stated[-1])
    numbers = _NUMBER.findall(response)
    return to_aime_integer(numbers[-1]) if numbers else None


def aime_answers_equal(predicted: object, truth: object) -> bool:
    expected = to_aime_integer(truth)
    return expected is not None and to_aime_integer(predicted) == expected
