"""The read policy, applied to every event of the page at once: with an allow-list and without
EVALUI_PUBLIC_READ=1, a visitor who is not allowed gets nothing stored (runs, samples, reports,
downloads, generated files, reviews) from any handler, present or future.

Each handler is wrapped where Gradio keeps it. A named API endpoint refuses with a message; an
event of the page itself (load, timer, filters) changes nothing, so the page stays empty and quiet.
"""

from __future__ import annotations

import functools
import inspect

import gradio as gr

from evalui.ui.web.access import Refused, may_read, say


def _refusal(outputs: int, named: bool):
    if named:
        raise Refused(say("access.refused", action=say("access.use_this_dashboard")))
    if outputs == 0:
        return None
    return gr.skip() if outputs == 1 else tuple(gr.skip() for _ in range(outputs))


def _gated(fn, outputs: int, named: bool):
    # Same kind of callable as the handler: Gradio tells generators and coroutines apart by it.
    if inspect.isasyncgenfunction(fn):
        @functools.wraps(fn)
        async def run(*args, **kwargs):
            if not may_read():
                yield _refusal(outputs, named)
                return
            async for value in fn(*args, **kwargs):
                yield value
    elif inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def run(*args, **kwargs):
            return await fn(*args, **kwargs) if may_read() else _refusal(outputs, named)
    elif inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            if not may_read():
                yield _refusal(outputs, named)
                return
            yield from fn(*args, **kwargs)
    else:
        @functools.wraps(fn)
        def run(*args, **kwargs):
            return fn(*args, **kwargs) if may_read() else _refusal(outputs, named)
    return run


def gate_reads(demo: gr.Blocks) -> None:
    """Wrap every Python handler of ``demo`` in the read policy; the sign-in button's own check is left alone."""
    for block_fn in demo.fns.values():
        fn = block_fn.fn
        if fn is None or isinstance(getattr(fn, "__self__", None), gr.LoginButton):
            continue
        named = bool(block_fn.api_name) and block_fn.api_visibility == "public"
        block_fn.fn = _gated(fn, len(block_fn.outputs), named)
