"""Which components show an event's progress: few, because Gradio 6's page pays for each one.

On every status message of every event (pending, started, finished, for each timer tick too),
Gradio 6.31's front end re-applies the loading state of every component that any event has
marked so far, and finds each one by a walk of the whole component tree. With every output
marked, a page watching a run (a tick every half second) kept a browser core busy, and opening
the page was slow too (bench/page_cpu.py; the figures are in bench/RESULTS.md).

An event's progress targets are its ``show_progress_on`` or, when unset, all its outputs. This
policy, applied once to the built Blocks, marks no component for events whose progress is hidden
(timers, background refreshes), and one for the others: the first output the page shows (a
status line, a table), where the spinner tells the reader something is under way. States are
never marked: they are not on the page, so looking one up walked the whole tree in vain.
"""

from __future__ import annotations

import gradio as gr

# Beyond this many outputs an event shows its progress on its first shown output only.
MAX_TARGETS = 1


def _shown(component) -> bool:
    return isinstance(component, gr.components.Component) and not isinstance(
        component, (gr.State, gr.BrowserState, gr.Timer))


def limit_progress_targets(demo: gr.Blocks) -> None:
    for fn in demo.fns.values():
        if fn.show_progress_on is not None:
            continue  # chosen where the event is wired
        if fn.show_progress == "hidden":
            fn.show_progress_on = []
            continue
        marked = [c for c in fn.outputs if _shown(c)][:MAX_TARGETS]
        if len(marked) < len(fn.outputs):  # more outputs than that, or a state (never on the page)
            fn.show_progress_on = marked
