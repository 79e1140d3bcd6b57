"""One agentic conversation's backend: a memory store or the web, and the only way a model's call runs.

A call runs only when ``decode_step`` accepted it (a documented function the backend class
implements, identifier argument names, plain-data values), by looking the method up on the
instance and calling it with keyword arguments, as for the multi-turn backends. Memory backends run
in the run's call workers (``evalui.benchmarks.bfcl.isolated.IsolatedMemory``), under the call
deadline and the worker's memory cap; web search runs here, in a thread, bounded by its sources'
deadlines. bfcl's own limits cap each entry (7 core entries of 300
characters, 50 archival of 2,000, one summary of 10,000), except one: rec_sum's ``memory_replace``
checks the new text's length, not the memory's after the replacement, so ``memory_replace("a",
"a" * 10000)`` grows a 10,000-character memory to 100 MB in one call, and the next to a terabyte.
``MAX_MEMORY_CHARS`` bounds what one backend stores: a call that would pass it is not run, and
the conversation stops with ``too_large``; so a snapshot is never larger than that either.

Memory backends are bfcl-eval's own classes, loaded by ``evalui.benchmarks.bfcl.agentic.memory``
(kv needs ``rank_bm25``, as upstream; memory_vector gets the torch-free all-MiniLM-L6-v2 encoder). Each loads and writes its snapshots under the run's
snapshot folder, as bfcl's ``MemoryAPI._prepare_snapshot`` lays them out.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from pathlib import Path

from evalui.benchmarks.bfcl.data import BfclEntry
from evalui.benchmarks.bfcl.multi_turn.backends import result_text
from evalui.benchmarks.bfcl.scoring.execution_text import method_mapping, refusal_text, rewritten_arguments
from evalui.benchmarks.bfcl.scoring.multi_turn import DecodedCall


def with_memory_instructions(entry: BfclEntry, instance) -> BfclEntry:
    """The entry with bfcl's memory system prompt in its first turn (memory categories only)."""
    if not entry.category.startswith("memory"):
        return entry
    from bfcl_eval.model_handler.utils import add_memory_instruction_system_prompt

    question = add_memory_instruction_system_prompt(copy.deepcopy(entry.question), entry.id.rsplit("_", 1)[0],
                                                    entry.initial_config["scenario"], instance)
    return dataclasses.replace(entry, question=question)


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


MAX_MEMORY_CHARS = 1_000_000  # ten times what bfcl's own entry limits let any honest memory hold
TOO_LARGE = "too_large"


def stored_chars(instance) -> int:
    """Characters of text a memory backend holds: its summary, and its entries' keys and values."""
    total = 0
    for value in vars(instance).values():
        if isinstance(value, str):
            total += len(value)
        elif isinstance(value, dict):
            total += sum(len(k) + len(v) for k, v in value.items() if isinstance(k, str) and isinstance(v, str))
    return total


def _grown_chars(instance, call: DecodedCall) -> int:
    """What rec_sum's ``memory_replace`` would leave in the memory, counted before it runs."""
    memory = getattr(instance, "memory", None)
    if call.name != "memory_replace" or not isinstance(memory, str):
        return 0
    old, new = str(call.arguments.get("old_text", "")), str(call.arguments.get("new_text", ""))
    return len(memory) + memory.count(old) * (len(new) - len(old)) if old else 0


class AgenticBackend:
    """One conversation's backend instance and the names a model may call on it."""

    def __init__(self, entry: BfclEntry, instance, model_name: str = ""):
        self.instance = instance
        self.allowed = frozenset({f["name"] for f in entry.functions} & public_method_names(type(instance)))
        self.mapping = method_mapping({type(instance).__name__: instance}, model_name, entry.id)

    def close(self) -> None:
        """Nothing to stop: the instance lives in this process (the same hook as a worker's backend)."""

    def run(self, call: DecodedCall) -> tuple[str, str]:
        """(result text, error) of one checked call; a refused call is reported, never run."""
        if call.refused or call.name not in self.allowed:
            return refusal_text(call, frozenset(self.mapping)), "refused"
        if max(_grown_chars(self.instance, call), stored_chars(self.instance)) > MAX_MEMORY_CHARS:
            return (f"Error during execution: too_large: {call.name[:80]!r} was not run: the memory would hold more "
                    f"than the {MAX_MEMORY_CHARS:,} characters evalui allows one backend."), TOO_LARGE
        try:
            return result_text(getattr(self.instance, call.name)(**rewritten_arguments(call, self.mapping))), ""
        except Exception as exc:  # a backend's own error is the call's result, as upstream reports it
            return f"Error during execution: {exc}", type(exc).__name__
