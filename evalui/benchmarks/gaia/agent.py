"""The user's own agent, given as ``module:attr``: anything with ``answer(record) -> str``.

This is the thin wrapper of the GAIA testing recipe: evaluate a real agent with its own tools,
not only a bare model. A class is instantiated without arguments.
"""

from __future__ import annotations

import pkgutil
import sys
from pathlib import Path

from evalui.errors import InputError


def load_agent(spec: str):
    module_name, colon, attribute = (spec or "").partition(":")
    if not module_name or not colon or not attribute:
        raise InputError(f"--agent takes module:attr (for example my_agent:MyAgent), not {spec!r}")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # agents usually live beside the user's working folder
    try:
        target = pkgutil.resolve_name(spec)
    except ImportError as exc:
        raise InputError(f"cannot import the agent module {module_name!r}: {exc}") from None
    except AttributeError as exc:
        if module_name not in sys.modules:  # raised while the module itself was imported
            raise InputError(f"cannot import the agent module {module_name!r}: {exc}") from None
        raise InputError(f"module {module_name!r} has no attribute {attribute!r}") from None
    except ValueError:  # not a dotted name, such as "my agent:X"
        raise InputError(f"--agent takes module:attr (for example my_agent:MyAgent), not {spec!r}") from None
    agent = target() if isinstance(target, type) else target
    if not callable(getattr(agent, "answer", None)):
        raise InputError(f"{spec} has no answer(record) method")
    return agent
