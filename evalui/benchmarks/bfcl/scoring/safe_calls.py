"""A guard in front of bfcl-eval's decoders: model or uploaded text is parsed, never executed.

bfcl-eval's prompt-mode decoder calls ``eval()`` on every binary operation it meets in an
argument (``base=2*5``), so ``base=__import__('os').system('id')+10`` runs a command and
``base=9**9**9**9`` never returns. Before the official decoder sees a text, this module parses
it with ``ast`` and accepts only what a call with literal arguments needs: constants, lists,
tuples, dicts, sets, unary signs, names as the called function, and bare names as values (which
the official decoder reads as their own text, without running anything). Arithmetic between
numeric constants, and ``+`` between strings, is computed here with bounds on size, and the text
the official decoder gets has the results in place of the operations, so benign answers keep
their official verdict. Anything else is unsafe and never reaches a decoder.

Java and JavaScript texts are read by bfcl-eval with tree-sitter, which executes nothing; they and
FC-mode argument JSON are only held to size and nesting limits here.
"""

from __future__ import annotations

import ast
import math
import operator
from typing import cast

from evalui.benchmarks.bfcl import settings as bfcl_settings
from evalui.benchmarks.bfcl.scoring.official import parse_python

MAX_TEXT_CHARS = 100_000
MAX_NESTING = 100
MAX_INT_BITS = 4_096
MAX_STRING_CHARS = 100_000
MAX_POWER_EXPONENT = 4_096


class UnsafeExpression(ValueError):
    """The text holds something that would be executed, or is too large to decode safely."""


class NotACallList(ValueError):
    """The text parses, but is not a list of calls: the official decoder would fail on it too."""


_ARITHMETIC = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def check_size(text: str, what: str = "output") -> None:
    """Length and bracket nesting within bounds, for any language or shape."""
    if len(text) > MAX_TEXT_CHARS:
        raise UnsafeExpression(f"the {what} has {len(text)} characters, more than the {MAX_TEXT_CHARS} allowed")
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    if deepest > MAX_NESTING:
        raise UnsafeExpression(f"the {what} nests brackets {deepest} deep, more than the {MAX_NESTING} allowed")


def official_preprocessing(text: str) -> str:
    """The text exactly as bfcl-eval's prompt decoder hands it to ``ast.parse``."""
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text.strip().strip("'")


def guard_python_calls(text: str) -> str:
    """The text to give bfcl-eval's Python prompt decoder in place of ``text``.

    Raises UnsafeExpression for anything that would be executed or is too large, and NotACallList
    for text that is not a list of calls (which the official decoder also rejects). A text that
    does not parse is returned as it is: the official decoder fails on it the same way, having
    executed nothing.
    """
    if not isinstance(text, str):
        raise NotACallList("a prompt-mode result must be text")
    check_size(text)
    tree = _parsed_within_bounds(official_preprocessing(text))
    if tree is None:
        return text
    calls = tree.body.elts if isinstance(tree.body, (ast.List, ast.Tuple)) else [tree.body]
    if not all(isinstance(call, ast.Call) for call in calls):
        raise NotACallList("the output is not a list of function calls")
    return _checked(tree, calls, text)


def guard_python_source(source: str) -> str:
    """As ``guard_python_calls``, for a source that bfcl's decoder parses exactly as given (no
    brackets added: the inside of a ``<TOOLCALL>`` tag). A call, or a list or tuple of calls, is
    what it evaluates; anything else in the body is refused here, before any of it could run."""
    check_size(source)
    tree = _parsed_within_bounds(source)
    if tree is None:
        return source
    calls = [tree.body] if isinstance(tree.body, ast.Call) else getattr(tree.body, "elts", None)
    if calls is None or not isinstance(tree.body, (ast.Call, ast.List, ast.Tuple)) or \
            not all(isinstance(call, ast.Call) for call in calls):
        raise NotACallList("the output is not a list of function calls")
    return _checked(tree, calls, source)


def _parsed_within_bounds(source: str) -> ast.Expression | None:
    """The expression's tree; None when it is not Python (the official decoder fails on it the same
    way, having run nothing). A parse that exhausts the parser's own limits is refused."""
    try:
        return cast(ast.Expression, parse_python(source))
    except SyntaxError:
        return None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise UnsafeExpression(f"the output cannot be parsed within bounds ({type(exc).__name__})") from None


def _checked(tree: ast.Expression, calls: list[ast.Call], original: str) -> str:
    """Every call checked; the original text when nothing was folded, else the folded source (only the
    folded operations change: everything else re-parses to the same tree)."""
    folded = False
    for call in calls:
        folded |= _check_call(call)
    return ast.unparse(tree) if folded else original


def _check_call(call: ast.Call) -> bool:
    _check_callee(call.func)
    folded = False
    for index, argument in enumerate(call.args):
        replacement = _literal(argument)
        if replacement is not None:
            call.args[index] = replacement
            folded = True
    for keyword in call.keywords:
        replacement = _literal(keyword.value)
        if replacement is not None:
            keyword.value = replacement
            folded = True
    return folded


def _check_callee(node: ast.AST) -> None:
    while isinstance(node, ast.Attribute):
        node = node.value
    if not isinstance(node, ast.Name):
        raise UnsafeExpression(f"a called function must be a plain or dotted name, not {ast.unparse(node)[:80]!r}")


def _literal(node: ast.AST) -> ast.AST | None:
    """Check a value; return a replacement node when an operation in it was computed here."""
    if isinstance(node, (ast.Constant, ast.Name)):
        return None
    if isinstance(node, ast.UnaryOp):
        # The official decoder negates ``operand.value`` itself, whatever the operator; leave the
        # node as it is. An operation under a sign makes it fail to decode, so check it but never
        # fold it.
        if isinstance(node.operand, ast.BinOp):
            _evaluate(node.operand)
        elif not isinstance(node.operand, ast.Constant):
            _literal(node.operand)
        return None
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        for index, element in enumerate(node.elts):
            replacement = _literal(element)
            if replacement is not None:
                node.elts[index] = replacement
        return None
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise UnsafeExpression("'**' unpacking is not a literal")
        for values in (node.keys, node.values):
            for index, element in enumerate(values):
                replacement = _literal(element)
                if replacement is not None:
                    values[index] = replacement
        return None
    if isinstance(node, ast.BinOp):
        return ast.Constant(_evaluate(node))
    raise UnsafeExpression(f"{type(node).__name__} is not a literal: {ast.unparse(node)[:80]!r}")


def _evaluate(node: ast.AST):
    """The value of arithmetic between numeric constants (or ``+`` between strings), bounded."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (int, float, str)):
            return node.value
        raise UnsafeExpression(f"{node.value!r} cannot take part in arithmetic here")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _evaluate(node.operand)
        if isinstance(value, str):
            raise UnsafeExpression("a sign before a string")
        return -value if isinstance(node.op, ast.USub) else +value
    if not isinstance(node, ast.BinOp) or type(node.op) not in _ARITHMETIC:
        raise UnsafeExpression(f"only arithmetic between numbers is computed, not {ast.unparse(node)[:80]!r}")
    left, right = _evaluate(node.left), _evaluate(node.right)
    if isinstance(left, str) or isinstance(right, str):
        if not (isinstance(node.op, ast.Add) and isinstance(left, str) and isinstance(right, str)):
            raise UnsafeExpression("strings may only be joined with '+' to strings")
        if len(left) + len(right) > MAX_STRING_CHARS:
            raise UnsafeExpression("the joined string is too long")
        return left + right
    _check_magnitude(node.op, left, right)
    try:
        result = _ARITHMETIC[type(node.op)](left, right)
    except (ZeroDivisionError, OverflowError) as exc:
        raise NotACallList(f"the arithmetic fails: {exc}") from None  # as it fails under eval()
    if isinstance(result, complex) or (isinstance(result, float) and math.isnan(result)):
        raise UnsafeExpression("the arithmetic has no real result")
    if isinstance(result, int) and result.bit_length() > MAX_INT_BITS:
        raise UnsafeExpression("the arithmetic's result is too large")
    return result


def _check_magnitude(op: ast.operator, left, right) -> None:
    """Refuse an operation whose integer result would be too large, before computing it."""
    if not (isinstance(left, int) and isinstance(right, int)):
        return
    if isinstance(op, ast.Mult) and left.bit_length() + right.bit_length() > MAX_INT_BITS + 1:
        raise UnsafeExpression("the product is too large")
    if isinstance(op, ast.Pow):
        if abs(right) > MAX_POWER_EXPONENT or (right > 0 and abs(left) > 1 and right * (abs(left).bit_length() - 1) > MAX_INT_BITS):
            raise UnsafeExpression("the power is too large")


def check_json_arguments(arguments: str) -> None:
    """FC-mode arguments are JSON: hold them to the same size and nesting limits."""
    if isinstance(arguments, str):
        check_size(arguments, "arguments")


# --- Values that will be executed against a backend (BFCL multi-turn) ----------------------------
# Multi-turn calls are run, not only compared, so their arguments must be plain data of bounded
# size. Every number is held to a magnitude far above anything in the real data (987,654 is the
# largest there), so big-integer arithmetic stays cheap; the parameters that set the size of a
# computation are held much tighter, whatever form the value takes: mpmath and ``round`` accept
# ``precision="100000"`` or ``30000.0`` as readily as an int. These bounds are the first line; the
# worker process that executes the calls (evalui.sandbox.call_worker) enforces a hard deadline.
MAX_ABS_NUMBER = 10**15
SIZE_ARGUMENT_LIMITS = {"precision": 1_000, "decimal_places": 1_000, "exponent": 4_096}
# The longest string a size parameter may be, once stripped. ``int()`` reads surrounding whitespace,
# leading zeros and ``_`` separators, so a long string can hold a small-looking or a huge number;
# no real size is written in more than a few characters, so a longer one is refused unread.
MAX_SIZE_TEXT = 400


def _as_number(value: object) -> float | int | None:
    """The number a backend would make of ``value`` (an int, a float or a numeric string)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = value.strip()
        for convert in (int, float):
            try:
                return convert(text)
            except (ValueError, OverflowError):
                continue
    return None


def size_argument_limit(key: str) -> int | None:
    """The bound of a size parameter; EVALUI_SIZE_ARGUMENT_LIMIT raises or lowers them all (an operator
    who trusts the results, or a test that needs a slow call to reach the worker's deadline)."""
    limit = SIZE_ARGUMENT_LIMITS.get(key)
    override = bfcl_settings.read("size_argument_limit")
    if limit is not None and override is not None:
        return override
    return limit


def check_number_bounds(key: str, value: object) -> None:
    """Refuse a numeric argument (numbers, and numeric strings where size matters) out of bounds."""
    limit = size_argument_limit(key)
    if limit is not None and isinstance(value, str) and len(value.strip()) > MAX_SIZE_TEXT:
        raise UnsafeExpression(f"{key} is a string of {len(value.strip()):,} characters, beyond the limit of "
                               f"{MAX_SIZE_TEXT} for a size")
    number = _as_number(value) if limit is not None else (
        value if isinstance(value, (int, float)) and not isinstance(value, bool) else None)
    if number is None:
        return
    if isinstance(number, float) and not math.isfinite(number):
        if limit is not None:
            raise UnsafeExpression(f"{key}={str(value)[:40]} is not a finite number")
        return
    bound = limit if limit is not None else MAX_ABS_NUMBER
    if abs(number) > bound:
        raise UnsafeExpression(f"{key}={str(value)[:40]} is beyond the limit of {bound:,}")


def check_identifier(name: object, what: str = "name") -> str:
    """A plain Python identifier (no dots, no keywords): safe to place before ``(`` or ``=``."""
    import keyword

    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise UnsafeExpression(f"the {what} {str(name)[:80]!r} is not a plain identifier")
    return name


def check_literal_value(value: object, depth: int = 0) -> None:
    """Plain data only (str, int, float, bool, None, lists, tuples, dicts with string keys), within
    the size and nesting limits, so that ``repr(value)`` is a literal that evaluates to itself."""
    if depth > MAX_NESTING:
        raise UnsafeExpression(f"the value nests more than {MAX_NESTING} deep")
    if value is None or isinstance(value, (bool, float)):
        return
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise UnsafeExpression("an integer argument is too large")
        return
    if isinstance(value, str):
        if len(value) > MAX_STRING_CHARS:
            raise UnsafeExpression("a string argument is too long")
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            check_literal_value(item, depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise UnsafeExpression("dictionary keys must be strings")
            check_literal_value(key, depth + 1)
            check_literal_value(item, depth + 1)
        return
    raise UnsafeExpression(f"{type(value).__name__} is not plain data")


def check_call_arguments(arguments: dict) -> None:
    """Keyword arguments of a call that will be executed: identifiers, plain data, bounded sizes."""
    for key, value in arguments.items():
        check_identifier(key, "argument name")
        check_literal_value(value)
        _check_numbers_within(key, value)


def _check_numbers_within(key: str, value: object, depth: int = 0) -> None:
    """Bounds for the value and every number inside it (``mean(numbers=[…])`` sums a list)."""
    if isinstance(value, (list, tuple)) and depth < MAX_NESTING:
        for item in value:
            _check_numbers_within(key, item, depth + 1)
    elif isinstance(value, dict) and depth < MAX_NESTING:
        for item in value.values():
            _check_numbers_within(key, item, depth + 1)
    else:
        check_number_bounds(key, value)
