"""The BFCL leaderboard's figures: every subtotal and the overall score, as bfcl-eval computes them.

bfcl-eval composes them inside ``generate_leaderboard_csv`` (``eval_checker/eval_runner_helper.py``),
a function that only writes CSV files. ``leaderboard`` follows that composition step by step, and
every mean is bfcl-eval's own function (``calculate_unweighted_accuracy``,
``calculate_weighted_accuracy``, ``calculate_percentage_weighted_accuracy``), as is each category's
score (``get_category_score``: a category that was not run counts as 0 and shows as "N/A"). The
overall score weights non-live 10, live 10, irrelevance 10, multi-turn 30 and agentic 40.
tests/unit/benchmarks/bfcl/test_bfcl_leaderboard.py holds the figures to the CSVs bfcl-eval writes itself.
"""

from __future__ import annotations

import copy

NON_LIVE_SIMPLE = ("simple_python", "simple_java", "simple_javascript")
NON_LIVE_PARTS = ("multiple", "parallel", "parallel_multiple")
NON_LIVE = NON_LIVE_SIMPLE + NON_LIVE_PARTS
LIVE = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
IRRELEVANCE = ("irrelevance", "live_irrelevance")
RELEVANCE = ("live_relevance",)
MULTI_TURN = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
WEB_SEARCH = ("web_search_base", "web_search_no_snippet")
MEMORY = ("memory_kv", "memory_vector", "memory_rec_sum")
AGENTIC = WEB_SEARCH + MEMORY
# The overall score's parts, their weights and their categories, as eval_runner_helper weights them.
PARTS = {"non_live": (10, NON_LIVE), "live": (10, LIVE), "irrelevance": (10, IRRELEVANCE),
         "multi_turn": (30, MULTI_TURN), "agentic": (40, AGENTIC)}
LEADERBOARD_CATEGORIES = NON_LIVE + LIVE + IRRELEVANCE + RELEVANCE + MULTI_TURN + AGENTIC
# Every subtotal evalui reports, with its categories (bfcl's CSV column in the comment).
SUBTOTALS = {
    "non_live": NON_LIVE,  # Non-Live Overall Acc (irrelevance apart)
    "non_live_simple": NON_LIVE_SIMPLE,  # Non-Live Simple AST
    "live": LIVE,  # Live Acc
    "irrelevance": IRRELEVANCE,  # Irrelevance Detection (data_overall.csv)
    "relevance": RELEVANCE,  # Relevance Detection (not weighted)
    "multi_turn": MULTI_TURN,  # Multi Turn Acc
    "web_search": WEB_SEARCH,  # Web Search Acc
    "memory": MEMORY,  # Memory Acc
    "agentic": AGENTIC,  # Agentic Overall Acc
}


def official_helper():
    """bfcl-eval's ``eval_runner_helper`` (the leaderboard's figures and CSV writer), loaded without
    the provider SDKs (evalui.benchmarks.bfcl.registry).

    For a category that was not run, its ``get_category_score`` loads the whole dataset only to
    take its length; that module uses ``load_dataset_entry`` there alone. It is given the kept
    count instead (evalui.benchmarks.bfcl.dataset_sizes), counted by that same function once per
    installation. bfcl-eval's eval runner keeps the real function: it imports bfcl_eval.utils after."""
    from evalui.benchmarks.bfcl.dataset_sizes import counting_loader
    from evalui.benchmarks.bfcl.registry import import_without_provider_sdks, lazy_imports
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()  # sets BFCL_PROJECT_ROOT before bfcl_eval.utils is imported
    # pandas and numpy serve its CSV writer and latency figures alone, none of the functions used
    # here: imported on their first use, not for every run's summary (pandas alone is a slow import).
    with lazy_imports(("pandas", "numpy")):
        helper = import_without_provider_sdks("bfcl_eval.eval_checker.eval_runner_helper")
    helper.load_dataset_entry = counting_loader
    return helper


def official_table(by_category: dict[str, dict]) -> dict[str, dict]:
    """One model's ``leaderboard_table`` row as ``bfcl evaluate`` fills it from its score files:
    ``{category: {"accuracy", "correct_count", "total_count"}}`` for the categories judged."""
    table = {}
    for category, part in by_category.items():
        total = part.get("total") or 0
        if category in LEADERBOARD_CATEGORIES and total:
            correct = part.get("successes", round(part.get("rate", 0) * total))
            table[category] = {"accuracy": correct / total, "correct_count": correct, "total_count": total}
    return table


def category_scores(table: dict[str, dict]) -> dict[str, dict]:
    """``get_category_score`` for every leaderboard category: the score, or 0 shown as "N/A" (bfcl's
    function tells the two apart by whether the table has the category)."""
    helper = official_helper()
    return {c: helper.get_category_score(copy.deepcopy(table), c) for c in LEADERBOARD_CATEGORIES}


def official_subtotals(scores: dict[str, dict]) -> dict[str, dict]:
    """The subtotals of ``generate_leaderboard_csv``, by evalui's names, as bfcl's dicts
    (``accuracy``, ``total_count``, ``display_accuracy``), plus ``overall``."""
    h = official_helper()
    unweighted, weighted = h.calculate_unweighted_accuracy, h.calculate_weighted_accuracy
    simple = unweighted([scores[c] for c in NON_LIVE_SIMPLE])
    non_live_parts = [simple] + [scores[c] for c in NON_LIVE_PARTS]
    live_parts = [scores[c] for c in LIVE]
    web_search = unweighted([scores[c] for c in WEB_SEARCH])
    memory = unweighted([scores[c] for c in MEMORY])
    out = {
        "non_live_simple": simple,
        "non_live_ast": unweighted(non_live_parts),  # AST Summary: "N/A" unless every part was run
        "non_live": unweighted(non_live_parts, display_na_if_category_missing=False),
        "live_ast": weighted(live_parts),
        "live": weighted(live_parts, display_na_if_category_missing=False),
        "irrelevance": unweighted([scores[c] for c in IRRELEVANCE]),
        "relevance": scores["live_relevance"],
        "multi_turn": unweighted([scores[c] for c in MULTI_TURN], display_na_if_category_missing=False),
        "web_search": web_search,
        "memory": memory,
        "agentic": unweighted([web_search, memory], display_na_if_category_missing=False),
    }
    out["overall"] = h.calculate_percentage_weighted_accuracy(
        [out[part] for part in PARTS], [weight for weight, _ in PARTS.values()], display_na_if_category_missing=False)
    return out


def leaderboard(by_category: dict[str, dict]) -> dict:
    """The run's leaderboard figures for summary.json.

    ``by_category`` maps a category to ``{"successes", "total", "rate"}`` (as the run summary holds
    it). Returns ``overall`` (categories not run count as 0, as on the leaderboard), ``partial``
    (some category of the overall score was not run), ``parts_run`` and ``parts_missing`` (the
    overall score's five parts with at least one category run, and the others), ``subset`` (some
    category was run on fewer entries than the dataset holds), and one entry per subtotal:
    ``{"accuracy", "complete", "total", "categories", "missing"}``, ``accuracy`` counting the
    missing categories as 0, ``total`` the samples judged in the categories run."""
    table = official_table(by_category)
    scores = category_scores(table)
    figures = official_subtotals(scores)
    result: dict = {}
    for name, categories in SUBTOTALS.items():
        run = [c for c in categories if c in table]
        if not run:
            continue
        result[name] = {"accuracy": figures[name]["accuracy"], "complete": len(run) == len(categories),
                        "total": sum(table[c]["total_count"] for c in run), "categories": run,
                        "missing": [c for c in categories if c not in table]}
        if name in PARTS:
            result[name]["weight"] = PARTS[name][0] / 100
    counted = [c for _, categories in PARTS.values() for c in categories]
    result.update(
        overall=figures["overall"]["accuracy"],
        partial=any(c not in table for c in counted),
        parts_run=[p for p, (_, categories) in PARTS.items() if any(c in table for c in categories)],
        parts_missing=[p for p, (_, categories) in PARTS.items() if not any(c in table for c in categories)],
        subset=any(table[c]["total_count"] < official_helper().get_category_score({}, c)["total_count"] for c in table),
    )
    return result
