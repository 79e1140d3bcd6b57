"""Lazy access to bfcl-eval's own decoder and AST checker.

evalui delegates every BFCL verdict to these functions so that its numbers are the
leaderboard's by construction. Nothing is imported until the first verdict is needed.
"""

from __future__ import annotations

import ast
import functools
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalui.benchmarks.bfcl.registry import import_without_provider_sdks

INSTALL_HINT = (
    "bfcl-eval is not installed. Install it without its heavy dependencies: "
    "pip install --no-deps bfcl-eval==2026.3.23 && pip install -r requirements-bfcl.txt"
)

# The checker only consults the model registry to decide whether dotted function names were
# rewritten with underscores (OpenAI-style FC names). These two registered names select the two
# behaviours; they say nothing else about the model being evaluated.
_MODEL_KEEPING_DOTS = "gpt-4o-2024-11-20"
_MODEL_UNDERSCORE_TO_DOT = "gpt-4o-2024-11-20-FC"
CHECKER_MODULE = "bfcl_eval.eval_checker.ast_eval.ast_checker"


class BfclUnavailable(RuntimeError):
    """bfcl-eval (or a package its checker imports) is missing."""


@dataclass(frozen=True)
class OfficialBfcl:
    ast_checker: Callable[..., dict]
    decode_prompting: Callable[..., list]
    is_function_calling_format: Callable[[Any], bool]
    is_empty_output: Callable[[Any], bool]
    language: Any
    return_format: Any

    def checker_model_name(self, underscore_to_dot: bool) -> str:
        return _MODEL_UNDERSCORE_TO_DOT if underscore_to_dot else _MODEL_KEEPING_DOTS


def set_project_root() -> None:
    """bfcl-eval creates result/score folders under BFCL_PROJECT_ROOT when imported; keep them
    out of site-packages and out of the user's working tree."""
    os.environ.setdefault("BFCL_PROJECT_ROOT", str(Path(tempfile.gettempdir()) / "evalui-bfcl-eval-root"))


# CPython 3.11 (before 3.11.8) counts the depth of ast.parse's tree conversion in state that its
# threads share: two conversions at once (samples decoded on two threads) can fail with
# "SystemError: AST constructor recursion depth mismatch", or return a wrong tree (a valid call list
# read as "invalid syntax"). So every parse of a model's text takes turns: bfcl-eval's decoder and
# evalui's own guards (``parse_python``); a parse is short beside the model call before it.
_PARSING = threading.Lock()


def parse_python(source: str, mode: str = "eval") -> ast.AST:
    """``ast.parse``, one thread at a time (see _PARSING)."""
    with _PARSING:
        return ast.parse(source, mode=mode)


def _one_at_a_time(decode: Callable[..., list]) -> Callable[..., list]:
    @functools.wraps(decode)
    def serialised(*args: Any, **kwargs: Any) -> list:
        with _PARSING:
            return decode(*args, **kwargs)
    return serialised


def _fresh_lock_in_child() -> None:
    # A process forked while another thread decoded (a run's judging child) would find the lock
    # taken for good.
    global _PARSING
    _PARSING = threading.Lock()


@functools.cache
def load_official() -> OfficialBfcl:
    set_project_root()
    try:
        from bfcl_eval.constants.enums import Language, ReturnFormat
        ast_checker = import_without_provider_sdks(CHECKER_MODULE).ast_checker
        from bfcl_eval.model_handler.utils import default_decode_ast_prompting
        from bfcl_eval.utils import is_empty_output, is_function_calling_format_output
    except ImportError as exc:
        raise BfclUnavailable(f"{INSTALL_HINT} ({exc})") from exc
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_fresh_lock_in_child)
    return OfficialBfcl(
        ast_checker=ast_checker,
        decode_prompting=_one_at_a_time(default_decode_ast_prompting),
        is_function_calling_format=is_function_calling_format_output,
        is_empty_output=is_empty_output,
        language=Language,
        return_format=ReturnFormat,
    )

