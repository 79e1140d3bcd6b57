"""Outside code that evalui loads by name: the one loader behind the benchmarks' registry
(evalui.core.registry) and the scanners' (evalui.scanners.registry).

A plugin is a ``module:attr`` target (resolved by ``pkgutil.resolve_name``, so ``module:attr.inner``
works too), declared by an installed distribution's entry point in a group, or by an environment
variable ``NAME=name=module:attr[,…]``. Each registry decides what a declaration may override (its
built-ins, an installed one); a target that cannot load is a PluginError, whoever asked for it.
"""

from __future__ import annotations

import functools
import pkgutil
from importlib.metadata import entry_points
from typing import TypeVar

from evalui.settings import read, variables

T = TypeVar("T")


class PluginError(ImportError):
    """A target that cannot load: no such module or attribute, or no ``module:attr`` at all."""


@functools.cache
def installed(group: str) -> tuple[tuple[str, str], ...]:
    """(name, target) of each entry point installed distributions declare in ``group``. Read once per
    process: scanning every distribution takes tens of milliseconds."""
    return tuple((entry.name, entry.value) for entry in entry_points(group=group))


def from_env(variable: str) -> dict[str, str]:
    """name -> target of ``variable``'s ``name=module:attr[,…]`` entries (a later entry of a name wins).
    ``variable`` is one of evalui.settings' (EVALUI_BENCHMARKS, EVALUI_SCANNERS), read through it."""
    found = {}
    for item in read(variables()[variable]).split(","):
        name, _, target = item.strip().partition("=")
        if name and target:
            found[name.strip()] = target.strip()
    return found


def load(kind: str, name: str, target: str, expected: type[T], what: str) -> T:
    """The ``expected`` object ``target`` names, whose ``name`` is ``name``. PluginError when it cannot
    load ("<kind> 'name': cannot load 'target' (why)"); TypeError when it is not ``what`` named ``name``."""
    try:
        found = pkgutil.resolve_name(target)
    except (ImportError, AttributeError, ValueError) as exc:
        raise PluginError(f"{kind} {name!r}: cannot load {target!r} ({type(exc).__name__}: {exc})") from exc
    if not isinstance(found, expected) or getattr(found, "name", None) != name:
        raise TypeError(f"{target} is not the {what} named {name!r}")
    return found
