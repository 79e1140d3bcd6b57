"""One agentic conversation's backend: a memory store or the web, and the only way a model's call runs.

A call runs only when ``decode_step`` accepted it (a documented function the backend class
implements, identifier argument names, plain-data values), by looking the method up on the
instance and calling it with keyword arguments, as for the multi-turn backends. These backends run
in the server's process, in a thread: memory calls are bounded string and list work (entries capped
by bfcl's own limits), and web calls are bounded by the web source's deadlines.

Memory backends: ``memory_kv`` and ``memory_rec_sum`` are bfcl-eval's own classes (kv needs
``rank_bm25``, as upstream); ``memory_vector`` comes from ``evalui.benchmarks.bfcl.agentic.memory``
(torch-free) when that module is installed. Each loads and writes its snapshots under the run's
snapshot folder, as bfcl's ``MemoryAPI._prepare_snapshot`` lays them out.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from evalui.benchmarks.bfcl.data import BfclEntry
from evalui.benchmarks.bfcl.multi_turn.backends import result_text
from evalui.benchmarks.bfcl.scoring.multi_turn import DecodedCall

OFFICIAL_MEMORY_CLASSES = {"memory_kv": "MemoryAPI_kv", "memory_rec_sum": "MemoryAPI_rec_sum"}


class BackendUnavailable(RuntimeError):
    """The category's backend cannot be built here (a missing package, or no web configured)."""


def memory_class(category: str) -> type:
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()
    if category in OFFICIAL_MEMORY_CLASSES:
        from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

        name = OFFICIAL_MEMORY_CLASSES[category]
        try:
            return getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[name]), name)
        except ImportError as exc:
            raise BackendUnavailable(f"{category} needs {exc.name}: pip install -r requirements-bfcl.txt") from exc
    try:
        memory = importlib.import_module("evalui.benchmarks.bfcl.agentic.memory")
    except ImportError as exc:
        raise BackendUnavailable(f"{category}: evalui's torch-free vector memory is not available ({exc})") from exc
    return memory.load_memory_backend(category)


def public_method_names(cls: type) -> frozenset[str]:
    return frozenset(name for name, _ in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_"))


def new_backend(entry: BfclEntry, snapshot_root: Path | None, web_options=None):
    """A fresh instance for ``entry``, its scenario or snippet setting loaded, as upstream builds it."""
    category = entry.category
    if category.startswith("memory"):
        instance = memory_class(category)()
        instance._load_scenario({"model_result_dir": Path(snapshot_root), "scenario": entry.initial_config["scenario"],
                                 "test_id": entry.id, "test_category": entry.id.rsplit("_", 1)[0]})
        return instance
    from evalui.benchmarks.bfcl.agentic.web_search import check_web_options, new_web_search_api

    instance = new_web_search_api(check_web_options(web_options))
    instance._load_scenario({"show_snippet": "no_snippet" not in entry.id})
    return instance


class AgenticBackend:
    """One conversation's backend instance and the names a model may call on it."""

    def __init__(self, entry: BfclEntry, instance):
        self.instance = instance
        self.allowed = frozenset({f["name"] for f in entry.functions} & public_method_names(type(instance)))

    def run(self, call: DecodedCall) -> tuple[str, str]:
        """(result text, error) of one checked call; a refused call is reported, never run."""
        if call.refused or call.name not in self.allowed:
            return (f"Error during execution: {call.name[:80]!r} was not run: "
                    f"{call.refused or 'not one of the available functions'}."), "refused"
        try:
            return result_text(getattr(self.instance, call.name)(**call.arguments)), ""
        except Exception as exc:  # a backend's own error is the call's result, as upstream reports it
            return f"Error during execution: {exc}", type(exc).__name__
