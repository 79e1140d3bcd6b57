"""The evalui command makes fewer full collections while it works, and leaves Python's defaults
in place before it returns, also after an error (its shutdown is then Python's usual one)."""
from __future__ import annotations

import gc

import pytest

from evalui.run import heap


def test_full_collections_are_rarer_inside_and_the_defaults_return_after_an_error():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError):
        with heap.fewer_full_collections():
            assert gc.get_threshold() == (before[0], before[1], before[2] * heap.FEWER_FULL_COLLECTIONS)
            raise RuntimeError("the run failed")
    assert gc.get_threshold() == before
