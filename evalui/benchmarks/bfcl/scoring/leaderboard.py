"""The BFCL leaderboard's subtotals, over the categories a run has.

As bfcl-eval's ``eval_runner_helper`` combines them: non-live is the unweighted mean of simple
(itself the unweighted mean of its Python, Java and JavaScript parts), multiple, parallel and
parallel_multiple; live is the mean of live_simple, live_multiple, live_parallel and
live_parallel_multiple weighted by their sample counts; multi-turn is the unweighted mean of its
four categories. Here a subtotal averages only the parts that were run, and says which.
"""

from __future__ import annotations

NON_LIVE_SIMPLE = ("simple_python", "simple_java", "simple_javascript")
NON_LIVE_PARTS = ("multiple", "parallel", "parallel_multiple")
LIVE = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
MULTI_TURN = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")


def _unweighted(parts: list[tuple[float, int]]) -> tuple[float, int] | None:
    return (sum(rate for rate, _ in parts) / len(parts), sum(n for _, n in parts)) if parts else None


def leaderboard_subtotals(by_category: dict[str, dict]) -> dict[str, dict]:
    """``{"non_live"|"live"|"multi_turn": {"accuracy", "total", "categories"}}`` for the groups the run touched.

    ``by_category`` maps a category to ``{"rate", "total"}`` (as the run summary holds it)."""
    have = {c: (p["rate"], p["total"]) for c, p in by_category.items() if p.get("total")}
    subtotals: dict[str, dict] = {}
    simple = _unweighted([have[c] for c in NON_LIVE_SIMPLE if c in have])
    non_live = _unweighted(([simple] if simple else []) + [have[c] for c in NON_LIVE_PARTS if c in have])
    if non_live:
        subtotals["non_live"] = {"accuracy": non_live[0], "total": non_live[1],
                                 "categories": [c for c in NON_LIVE_SIMPLE + NON_LIVE_PARTS if c in have]}
    live = [have[c] for c in LIVE if c in have]
    if live:
        count = sum(n for _, n in live)
        subtotals["live"] = {"accuracy": sum(rate * n for rate, n in live) / count, "total": count,
                             "categories": [c for c in LIVE if c in have]}
    multi = _unweighted([have[c] for c in MULTI_TURN if c in have])
    if multi:
        subtotals["multi_turn"] = {"accuracy": multi[0], "total": multi[1],
                                   "categories": [c for c in MULTI_TURN if c in have]}
    return subtotals
