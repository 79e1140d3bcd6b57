"""Every BFCL entry, in FC and prompt mode: evalui's requests equal bfcl-eval's handler's (3,641
single-turn entries and 800 multi-turn conversations). tests/unit/benchmarks/bfcl/test_bfcl_request_parity.py
explains the comparison and checks every 10th entry."""

from __future__ import annotations

import pytest
from unit.benchmarks.bfcl.test_bfcl_request_parity import MODES, assert_identical, sides, sweep  # noqa: F401  (sides is a fixture)

from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES, MULTI_TURN_CATEGORIES


@pytest.mark.parametrize("mode", MODES)
def test_every_single_turn_entry_equals_bfcl_handler(sides, mode):
    compared, problems = sweep(sides, CATEGORIES, mode)
    assert compared == 3641
    assert_identical(compared, problems)


@pytest.mark.parametrize("category", MULTI_TURN_CATEGORIES)
@pytest.mark.parametrize("mode", MODES)
def test_every_multi_turn_conversation_equals_bfcl_loop(sides, category, mode):
    compared, problems = sweep(sides, [category], mode)
    assert compared == 200
    assert_identical(compared, problems)
