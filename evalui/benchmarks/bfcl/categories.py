"""BFCL's category groups, as the tab offers them: one choice stands for a whole part of the
leaderboard, so a full run is one or two choices instead of a list of twenty names."""

from __future__ import annotations

from evalui.benchmarks.bfcl.scoring.leaderboard import LEADERBOARD_CATEGORIES
from evalui.benchmarks.bfcl.scoring.single_turn import AGENTIC_CATEGORIES, CATEGORIES, MULTI_TURN_CATEGORIES

# bfcl-eval's own collection names (its --test-category takes them too), so a group reads the same in both.
NON_LIVE = tuple(c for c in CATEGORIES if not c.startswith("live_"))
LIVE = tuple(c for c in CATEGORIES if c.startswith("live_"))


def category_groups() -> list[tuple[str, str, tuple[str, ...]]]:
    """(label key of the UI catalog, the group's value, its categories), smallest groups first; "all"
    is the whole leaderboard set, the one BFCL v4's overall score is computed over."""
    return [
        ("bfcl.group_non_live", "non_live", NON_LIVE),
        ("bfcl.group_live", "live", LIVE),
        ("bfcl.group_multi_turn", "multi_turn", MULTI_TURN_CATEGORIES),
        ("bfcl.group_agentic", "agentic", AGENTIC_CATEGORIES),
        ("bfcl.group_single_turn", "single_turn", CATEGORIES),
        ("bfcl.group_all", "all", LEADERBOARD_CATEGORIES),
    ]
