"""The cyclic garbage collector in a process that makes one run and exits (the CLI).

By the time a run starts, such a process holds everything it imported and loaded (bfcl-eval
alone imports anthropic, openai and qwen-agent), and all of it lives until the process ends. The
collector still walks those objects at every full collection: on 3,641 BFCL samples that was a
quarter of a second during the run and about two seconds in the exports. Frozen, they are
skipped. A long-lived process (the dashboard) must not freeze: whatever it holds at a run's start
and drops later could never be collected.
"""

from __future__ import annotations

import gc

_one_run_process = False


def one_run_process() -> None:
    """Declare this process a one-run process (the CLI's ``main`` does)."""
    global _one_run_process
    _one_run_process = True


def settle_before_run() -> None:
    """Called by the runner once the run's data is loaded and prepared."""
    if _one_run_process:
        gc.freeze()
