"""The shared run lifecycle: a changed selection on resume is adopted, a changed mode is refused,
concurrency is stored and reused, every summary has provenance, and --limit 0 means all."""
from __future__ import annotations


def test_two_runs_started_in_the_same_second_get_their_own_ids(store):
    from evalui.run.experiment import new_exp_id

    ids = {new_exp_id("bfcl", "org/My Model") for _ in range(200)}
    assert len(ids) == 200 and all(i.startswith("bfcl-my-model-") for i in ids)
