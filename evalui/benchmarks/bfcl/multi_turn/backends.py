"""Fresh backend instances for one conversation, and the only way evalui runs a model's call on them.

Upstream runs calls by ``eval()`` of a string and keeps instances in module globals for the life
of the process. Here every sample gets new instances built from its ``initial_config``; a call
runs only when ``evalui.benchmarks.bfcl.scoring.multi_turn.decode_step`` accepted it (a documented function
that a backend implements, identifier argument names, plain-data values), by looking the method
up on the instance and calling it with keyword arguments. ``close`` drops the instances.
"""

from __future__ import annotations

import copy
import json

from evalui.benchmarks.bfcl.data import BfclEntry
from evalui.benchmarks.bfcl.scoring.execution_text import method_mapping, refusal_text, rewritten_arguments
from evalui.benchmarks.bfcl.scoring.multi_turn import DecodedCall, allowed_names, backend_class, public_methods

STATELESS = frozenset({"MathAPI"})  # built without a scenario, as upstream builds it


def result_text(value) -> str:
    """A method's return value as upstream hands it back to the model."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


class Backends:
    """The entry's backend instances, for one conversation; use as a context manager."""

    def __init__(self, entry: BfclEntry, model_name: str = ""):
        self.allowed = allowed_names(entry.functions, entry.missed_function, entry.involved_classes)
        long_context = "long_context" in entry.category
        self.instances: dict[str, object] = {}
        for class_name in entry.involved_classes:
            instance = backend_class(class_name)()
            if class_name not in STATELESS:
                instance._load_scenario(copy.deepcopy(entry.initial_config.get(class_name, {})),
                                        long_context=long_context)
            self.instances[class_name] = instance
        # Later classes win a shared method name, as upstream's name mapping does.
        self._owner = {name: instance for class_name, instance in self.instances.items()
                       for name in public_methods(class_name)}
        # bfcl's executor rewrites each call's text with the instances' names (model, entry, class).
        self._mapping = method_mapping(self.instances, model_name, entry.id)

    def run(self, call: DecodedCall) -> tuple[str, str]:
        """(result text, error) of one checked call; a refused call is reported, never run."""
        if call.refused or call.name not in self.allowed or call.name not in self._owner:
            return refusal_text(call, frozenset(self._mapping)), "refused"
        method = getattr(self._owner[call.name], call.name)
        try:
            return result_text(method(**rewritten_arguments(call, self._mapping))), ""
        except Exception as exc:  # a backend's own error is the call's result, as upstream reports it
            return f"Error during execution: {exc}", type(exc).__name__

    def close(self) -> None:
        self.instances.clear()
        self._owner.clear()
        self._mapping.clear()

    def __enter__(self) -> Backends:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
