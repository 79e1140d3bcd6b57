"""bfcl-eval's model registry without the provider SDKs it imports.

``bfcl_eval.constants.model_config`` builds ``MODEL_CONFIG_MAPPING`` from every model handler, and
the handlers import anthropic, openai, google-genai, qwen-agent, cohere, mistralai and more, a
large import in every process that loads the AST checker or the leaderboard helper, though both only
read plain fields of an entry (``underscore_to_dot``; display name, link, organisation, licence
and prices). The agentic check imports the eval runner this way too, for a function that looks no
model up. So the registry's plain fields are read once per installed registry, kept as JSON
in the user's cache folder, and a stand-in built from them is what those bfcl-eval modules see
while they are imported. Their functions are bfcl-eval's own, unchanged.

tests/unit/benchmarks/bfcl/test_bfcl_checker_import.py holds the snapshot to the real registry, field by field.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import sys
import threading
import types
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evalui.benchmarks.bfcl import install_cache

REGISTRY_MODULE = "bfcl_eval.constants.model_config"
_swap = threading.Lock()
# Apart from _swap: a lazy module may be first used while a stand-in registry import holds that one.
_lazy_swap = threading.RLock()


@dataclasses.dataclass(frozen=True)
class RegistryEntry:
    """The plain fields of bfcl-eval's ``ModelConfig``; the handler class is kept by its name."""

    model_name: str
    display_name: str
    url: str
    org: str
    license: str
    model_handler: str
    input_price: float | None = None
    output_price: float | None = None
    is_fc_model: bool = True
    underscore_to_dot: bool = False


def _registry_source() -> Path:
    return install_cache.installed_module_file(REGISTRY_MODULE)


def _cache_file(source: Path) -> Path | None:
    return install_cache.cache_file("bfcl-model-registry", source.read_bytes())


def cache_path() -> Path | None:
    """Where this installation's registry snapshot is kept (None: no cache folder)."""
    return _cache_file(_registry_source())


def _entry_of(config: Any) -> RegistryEntry:
    fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(RegistryEntry)}
    handler = fields["model_handler"]
    fields["model_handler"] = f"{handler.__module__}.{handler.__qualname__}" if isinstance(handler, type) else str(handler)
    return RegistryEntry(**fields)


def snapshot_of_real_registry() -> dict[str, RegistryEntry]:
    """Import bfcl-eval's registry itself (the slow import) and keep its plain fields."""
    from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING

    return {name: _entry_of(config) for name, config in MODEL_CONFIG_MAPPING.items()}


def _read_cache(cache: Path | None) -> dict[str, RegistryEntry] | None:
    try:
        entries = {name: RegistryEntry(**fields) for name, fields in (install_cache.read_json(cache) or {}).items()}
    except (TypeError, AttributeError):
        return None
    return entries or None  # an empty registry is a damaged file, not bfcl-eval's


@functools.cache
def registry_snapshot() -> dict[str, RegistryEntry]:
    """The registry's plain fields: from the cache file, or from the real registry (then cached)."""
    cache = _cache_file(_registry_source())
    entries = _read_cache(cache)
    if entries is None:
        entries = snapshot_of_real_registry()
        install_cache.write_json(cache, {name: dataclasses.asdict(entry) for name, entry in entries.items()})
    return entries


class RegistryStandIn(MutableMapping):
    """``MODEL_CONFIG_MAPPING`` as the snapshot has it, read on first use. Entries added while it
    is in use (the leaderboard writer's entry for an unregistered model) stay in this object, and
    only they can be removed again."""

    def __init__(self) -> None:
        self._added: dict[str, Any] = {}

    def _known(self) -> Mapping[str, Any]:
        # Once anything has imported the real registry (bfcl-eval's eval runner does), answer from
        # it: its entries hold the handler classes that some of bfcl-eval's functions instantiate.
        real = getattr(sys.modules.get(REGISTRY_MODULE), "MODEL_CONFIG_MAPPING", None)
        if real is not None and not isinstance(real, RegistryStandIn):
            return real
        return registry_snapshot()

    def __getitem__(self, name: str) -> Any:
        if name in self._added:
            return self._added[name]
        return self._known()[name]

    def __setitem__(self, name: str, config: Any) -> None:
        self._added[name] = config

    def __delitem__(self, name: str) -> None:
        del self._added[name]

    def __iter__(self):
        yield from (name for name in self._known() if name not in self._added)
        yield from self._added

    def __len__(self) -> int:
        return sum(1 for _ in self)


@functools.cache
def _shared_stand_in() -> RegistryStandIn:
    # One object for every module imported with it: an entry the leaderboard writer adds is seen
    # by every bfcl-eval function that looks it up.
    return RegistryStandIn()


def import_without_provider_sdks(module_name: str) -> types.ModuleType:
    """bfcl-eval's ``module_name``, imported with the stand-in registry when the real one is not
    loaded yet. The stand-in is in sys.modules only while that import runs, so a later import of
    the registry (bfcl-eval's own eval runner, a request handler) still gets the real one."""
    with _swap:
        if module_name in sys.modules or REGISTRY_MODULE in sys.modules:
            return importlib.import_module(module_name)
        stand_in = types.ModuleType(REGISTRY_MODULE)
        stand_in.MODEL_CONFIG_MAPPING = _shared_stand_in()
        sys.modules[REGISTRY_MODULE] = stand_in
        try:
            return importlib.import_module(module_name)
        finally:
            if sys.modules.get(REGISTRY_MODULE) is stand_in:
                del sys.modules[REGISTRY_MODULE]


class _LazyModule(types.ModuleType):
    """A module imported on the first use of one of its attributes (lazy_imports)."""

    def __getattr__(self, name: str) -> Any:
        real = self.__dict__.get("_real")
        if real is None:
            with _lazy_swap:
                if sys.modules.get(self.__name__) is self:  # still standing in: the real import must not find it
                    del sys.modules[self.__name__]
            real = importlib.import_module(self.__name__)
            self.__dict__["_real"] = real
        return getattr(real, name)


@contextmanager
def lazy_imports(names: tuple[str, ...]) -> Iterator[None]:
    """While it runs, an ``import`` of one of ``names`` not imported yet binds a stand-in that imports
    the real module when an attribute of it is first read; afterwards the names import as usual.
    For a bfcl-eval module whose import pulls a large library that only functions evalui does not
    call use."""
    with _lazy_swap:
        added = {name: _LazyModule(name) for name in names if name not in sys.modules}
        sys.modules.update(added)
    try:
        yield
    finally:
        with _lazy_swap:
            for name, stand_in in added.items():
                if sys.modules.get(name) is stand_in:
                    del sys.modules[name]
