"""Lazy access to bfcl-eval's own decoder and AST checker.

evalui delegates every BFCL verdict to these functions so that its numbers are the
leaderboard's by construction. Nothing is imported until the first verdict is needed.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import tempfile
import threading
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INSTALL_HINT = (
    "bfcl-eval is not installed. Install it without its heavy dependencies: "
    "pip install --no-deps bfcl-eval==2026.3.23 && pip install -r requirements-bfcl.txt"
)

# The checker only consults the model registry to decide whether dotted function names were
# rewritten with underscores (OpenAI-style FC names). These two registered names select the two
# behaviours; they say nothing else about the model being evaluated.
_MODEL_KEEPING_DOTS = "gpt-4o-2024-11-20"
_MODEL_UNDERSCORE_TO_DOT = "gpt-4o-2024-11-20-FC"
# What bfcl-eval's registry says of those two names; tests/unit/test_bfcl_checker_import.py checks
# it against the real registry, and that the checker asks the registry nothing else.
_UNDERSCORE_TO_DOT = {_MODEL_KEEPING_DOTS: False, _MODEL_UNDERSCORE_TO_DOT: True}

_REGISTRY_MODULE = "bfcl_eval.constants.model_config"
_CHECKER_MODULE = "bfcl_eval.eval_checker.ast_eval.ast_checker"
_registry_swap = threading.Lock()


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


@dataclass(frozen=True)
class _RegistryAnswer:
    underscore_to_dot: bool


class CheckerModelRegistry(Mapping):
    """Stands in for bfcl-eval's model registry while its AST checker is imported.

    That registry imports every provider SDK (anthropic, openai, google-genai, qwen-agent, ...):
    about 8 s of CPU in every process that scores, although the checker only asks it whether a
    model's function names had their dots turned into underscores. This answers that for the two
    names evalui passes; any other name is looked up in the real registry, imported then.
    """

    def __getitem__(self, name: str) -> Any:
        if name in _UNDERSCORE_TO_DOT:
            return _RegistryAnswer(underscore_to_dot=_UNDERSCORE_TO_DOT[name])
        from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING

        return MODEL_CONFIG_MAPPING[name]

    def __iter__(self):
        from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING

        return iter(MODEL_CONFIG_MAPPING)

    def __len__(self) -> int:
        from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING

        return len(MODEL_CONFIG_MAPPING)


def import_ast_checker_module() -> types.ModuleType:
    """bfcl-eval's own ast_checker module, imported without the provider SDKs when possible.

    The stand-in registry is in sys.modules only while the checker module executes, so any later
    import of the registry (the leaderboard CSV, the official eval runner) gets the real one.
    """
    with _registry_swap:
        if _CHECKER_MODULE in sys.modules or _REGISTRY_MODULE in sys.modules:
            return importlib.import_module(_CHECKER_MODULE)
        stand_in = types.ModuleType(_REGISTRY_MODULE)
        stand_in.MODEL_CONFIG_MAPPING = CheckerModelRegistry()
        sys.modules[_REGISTRY_MODULE] = stand_in
        try:
            return importlib.import_module(_CHECKER_MODULE)
        finally:
            if sys.modules.get(_REGISTRY_MODULE) is stand_in:
                del sys.modules[_REGISTRY_MODULE]


@functools.cache
def load_official() -> OfficialBfcl:
    set_project_root()
    try:
        from bfcl_eval.constants.enums import Language, ReturnFormat
        ast_checker = import_ast_checker_module().ast_checker
        from bfcl_eval.model_handler.utils import default_decode_ast_prompting
        from bfcl_eval.utils import is_empty_output, is_function_calling_format_output
    except ImportError as exc:
        raise BfclUnavailable(f"{INSTALL_HINT} ({exc})") from exc
    return OfficialBfcl(
        ast_checker=ast_checker,
        decode_prompting=default_decode_ast_prompting,
        is_function_calling_format=is_function_calling_format_output,
        is_empty_output=is_empty_output,
        language=Language,
        return_format=ReturnFormat,
    )

