"""One agentic conversation's backend: a memory store or the web, and the only way a model's call runs.

A call runs only when ``decode_step`` accepted it (a documented function the backend class
implements, identifier argument names, plain-data values), by looking the method up on the
instance and calling it with keyword arguments, as for the multi-turn backends. These backends run
in the server's process, in a thread: memory calls are bounded string and list work (entries capped
by bfcl's own limits), and web calls are bounded by the web source's deadlines.

Memory backends are bfcl-eval's own classes, loaded by ``evalui.benchmarks.bfcl.agentic.memory``
(kv needs ``rank_bm25``, as upstream; memory_vector gets the torch-free all-MiniLM-L6-v2 encoder). Each loads and writes its snapshots under the run's
snapshot folder, as bfcl's ``MemoryAPI._prepare_snapshot`` lays them out.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from evalui.benchmarks.bfcl.data import BfclEntry
from evalui.benchmarks.bfcl.multi_turn.backends import result_text
from evalui.benchmarks.bfcl.scoring.multi_turn import DecodedCall

class BackendUnavailable(RuntimeError):
    """The category's backend cannot be built here (a missing package, or no web configured)."""


def memory_class(category: str) -> type:
    """bfcl-eval's backend class for the category, through evalui.benchmarks.bfcl.agentic.memory (which
    gives memory_vector its torch-free encoder)."""
    from evalui.benchmarks.bfcl.agentic.embedding import EmbeddingUnavailable
    from evalui.benchmarks.bfcl.agentic.memory import load_memory_backend

    try:
        return load_memory_backend(category)
    except EmbeddingUnavailable as exc:
        raise BackendUnavailable(f"{category}: {exc}") from exc
    except ImportError as exc:
        raise BackendUnavailable(f"{category} needs {exc.name}: pip install -r requirements-bfcl.txt") from exc


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
