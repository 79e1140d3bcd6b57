"""The shared run lifecycle: a changed selection on resume is adopted, a changed mode is refused,
concurrency is stored and reused, every summary has provenance, and --limit 0 means all."""
from __future__ import annotations

import pytest


def test_two_runs_started_in_the_same_second_get_their_own_ids(store):
    from evalui.run.experiment import new_exp_id

    ids = {new_exp_id("bfcl", "org/My Model") for _ in range(200)}
    assert len(ids) == 200 and all(i.startswith("bfcl-my-model-") for i in ids)


def test_epochs_are_read_from_the_store_s_highest_epoch_and_added_from_the_first(tmp_path):
    """add_epochs reads the run's highest epoch with one query; adding epochs copies the first epoch's
    samples, and a resume with other epochs than stored is refused."""
    from evalui.run.epochs import add_epochs
    from evalui.store.run_store import RunStore

    store = RunStore(tmp_path / "epochs.sqlite")
    try:
        assert store.max_epoch("none") == 1
        store.create_or_get_experiment("e", "echo", "m", "h", {})
        store.add_samples("e", [(f"s{i}", "g", {"i": i}) for i in range(3)])
        assert store.max_epoch("e") == 1 and add_epochs(store, "e", None) == 1
        assert add_epochs(store, "e", 3) == 3
        assert store.max_epoch("e") == 3
        assert sorted(s.sample_id for s in store.samples("e") if s.epoch == 3) == ["s0#e3", "s1#e3", "s2#e3"]
        assert add_epochs(store, "e", None) == 3
        with pytest.raises(ValueError, match="3 epochs"):
            add_epochs(store, "e", 2)
    finally:
        store.close()
