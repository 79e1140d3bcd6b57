"""``evalui`` with steps of the per-sample path removed: a what-if for bench/engine_budget.py.

Not a way to run evalui: with the judge removed every verdict says correct, and with the keeping
removed no request or answer is stored. It answers one question, what the run phase would be if a
step cost nothing, by running the real command with that step replaced by a constant.

EVALUI_BENCH_REMOVE names the steps, joined by "+":
- ``judge``: the official AST checker (each sample's verdict is a constant);
- ``keep``: packing the request and the answer for the store, and their search documents (the
  columns stay empty; the sample's row is still updated, judged and committed);
- ``progress``: the progress event each committed sample sends (counts are still kept).

Run: python stripped_run.py bfcl run ... (the arguments of ``evalui``)
"""

from __future__ import annotations

import os
import sys


def constant_verdict(*_args):
    # Named, at module level: a judge sent to the run's judging process is pickled by its name.
    return None, True, {"valid": True}


def remove(steps: set[str]) -> None:
    if "judge" in steps:
        from evalui.benchmarks.bfcl import task

        task.judge_entry = constant_verdict
    if "keep" in steps:
        from evalui.store import run_store

        searched = run_store.index_statement
        run_store.RunStore._pack = lambda self, *values: ([None] * len(values), [])

        def index_statement(dialect, exp_id, sample_id, part, body, **options):
            if part == run_store.SAMPLE:  # registered before the run phase: kept
                return searched(dialect, exp_id, sample_id, part, body, **options)
            return "SELECT 1", (), ("removed", "index")  # keyed: once per group commit

        run_store.index_statement = index_statement
    if "progress" in steps:
        from evalui.run import sample_run

        sample_run.SampleRun._progress = lambda self, message, done_here: None


if __name__ == "__main__":
    remove({step for step in os.environ.get("EVALUI_BENCH_REMOVE", "").split("+") if step})
    from evalui.cli import main

    sys.exit(main())
