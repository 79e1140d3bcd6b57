"""The leaderboard's overall score and subtotals equal what bfcl-eval's own CSV writer prints for the
same per-category scores, on varied selections (every category, some, one, none of a part)."""

from __future__ import annotations

import csv
import random

import pytest

from evalui.benchmarks.bfcl.leaderboard_csv import CSV_FILES, write_leaderboard_csvs
from evalui.benchmarks.bfcl.scoring.leaderboard import LEADERBOARD_CATEGORIES, PARTS, leaderboard

pytestmark = pytest.mark.unit

REGISTERED = "gpt-4o-2024-11-20-FC"  # a model bfcl-eval knows, so its writer needs nothing of evalui's
# summary key -> (CSV file, column) where bfcl-eval prints the same figure.
COLUMNS = {
    "overall": ("data_overall.csv", "Overall Acc"),
    "non_live": ("data_non_live.csv", "Non-Live Overall Acc"),
    "non_live_simple": ("data_overall.csv", "Non-Live Simple AST"),
    "live": ("data_live.csv", "Live Overall Acc"),
    "irrelevance": ("data_overall.csv", "Irrelevance Detection"),
    "relevance": ("data_overall.csv", "Relevance Detection"),
    "multi_turn": ("data_multi_turn.csv", "Multi Turn Overall Acc"),
    "web_search": ("data_overall.csv", "Web Search Acc"),
    "memory": ("data_overall.csv", "Memory Acc"),
    "agentic": ("data_agentic.csv", "Agentic Overall Acc"),
}
# Subtotals the leaderboard prints as N/A unless each of their categories was run.
SHOWN_ONLY_COMPLETE = {"non_live_simple", "irrelevance", "relevance", "web_search", "memory"}


def by_category(chosen: dict[str, tuple[int, int]]) -> dict[str, dict]:
    return {c: {"successes": k, "total": n, "rate": k / n} for c, (k, n) in chosen.items()}


def selections():
    rng = random.Random(24)
    everything = {c: (rng.randint(0, 50), 50) for c in LEADERBOARD_CATEGORIES}
    yield "every category", everything
    yield "one category", {"simple_python": (3, 4)}
    yield "nothing of agentic", {c: v for c, v in everything.items() if c not in PARTS["agentic"][1]}
    yield "agentic only", {c: everything[c] for c in PARTS["agentic"][1]}
    yield "memory without vector", {"memory_kv": (10, 155), "memory_rec_sum": (0, 155), "irrelevance": (240, 240)}
    for seed in range(6):
        rng = random.Random(seed)
        picked = rng.sample(LEADERBOARD_CATEGORIES, rng.randint(1, len(LEADERBOARD_CATEGORIES)))
        yield f"random {seed}", {c: (rng.randint(0, n), n) for c in picked for n in [rng.randint(1, 300)]}


def read_row(path) -> dict[str, str]:
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1
    return rows[0]


@pytest.mark.parametrize("name,chosen", list(selections()), ids=[n for n, _ in selections()])
def test_every_figure_equals_what_bfcl_eval_prints(tmp_path, name, chosen):
    board = leaderboard(by_category(chosen))
    files = write_leaderboard_csvs(tmp_path, by_category(chosen), REGISTERED, "fc")
    assert sorted(p.name for p in files.values()) == sorted(CSV_FILES)
    rows = {f: read_row(tmp_path / f) for f in CSV_FILES}
    assert rows["data_overall.csv"]["Model"] == "GPT-4o-2024-11-20 (FC)"
    for key, (file, column) in COLUMNS.items():
        printed = rows[file][column]
        if key == "overall":
            assert printed == f"{board['overall'] * 100:.2f}%", (key, printed, board["overall"])
        elif key not in board:  # none of its categories was run
            assert printed in ("N/A", "0.00%"), (key, printed)
        elif key in SHOWN_ONLY_COMPLETE and not board[key]["complete"]:
            assert printed == "N/A", (key, printed)
        else:
            assert printed == f"{board[key]['accuracy'] * 100:.2f}%", (key, printed, board[key])


@pytest.mark.parametrize("name,chosen", list(selections()), ids=[n for n, _ in selections()])
def test_overall_is_the_weighted_sum_with_missing_categories_as_zero(name, chosen):
    """An independent statement of eval_runner_helper's arithmetic."""
    rate = {c: (k / n if c in chosen else 0.0) for c in LEADERBOARD_CATEGORIES for k, n in [chosen.get(c, (0, 1))]}
    count = {c: chosen[c][1] for c in chosen}

    def mean(values):
        return sum(values) / len(values)

    non_live = mean([mean([rate["simple_python"], rate["simple_java"], rate["simple_javascript"]]),
                     rate["multiple"], rate["parallel"], rate["parallel_multiple"]])
    live_parts = PARTS["live"][1]
    # Categories not run weigh in with the dataset's size (and a rate of 0), as bfcl's get_category_score.
    sizes = {"live_simple": 258, "live_multiple": 1053, "live_parallel": 16, "live_parallel_multiple": 24}
    weights = {c: count.get(c, sizes[c]) for c in live_parts}
    live = sum(rate[c] * weights[c] for c in live_parts) / sum(weights.values())
    irrelevance = mean([rate["irrelevance"], rate["live_irrelevance"]])
    multi_turn = mean([rate[c] for c in PARTS["multi_turn"][1]])
    agentic = mean([mean([rate["web_search_base"], rate["web_search_no_snippet"]]),
                    mean([rate["memory_kv"], rate["memory_vector"], rate["memory_rec_sum"]])])
    expected = 0.1 * non_live + 0.1 * live + 0.1 * irrelevance + 0.3 * multi_turn + 0.4 * agentic
    board = leaderboard(by_category(chosen))
    assert board["overall"] == pytest.approx(expected, abs=1e-12)
    counted = [c for _, categories in PARTS.values() for c in categories]
    assert board["partial"] == any(c not in chosen for c in counted)
    assert board["parts_run"] == [p for p, (_, cs) in PARTS.items() if any(c in chosen for c in cs)]


def test_a_model_bfcl_does_not_know_is_printed_by_its_own_name_and_not_left_registered(tmp_path):
    from evalui.benchmarks.bfcl.scoring.leaderboard import official_helper

    registry = official_helper().MODEL_CONFIG_MAPPING  # the one the writer reads: bfcl-eval's or its stand-in
    before = set(registry)
    write_leaderboard_csvs(tmp_path, by_category({"simple_python": (1, 2)}), "org/my,model\nv2", "prompt")
    row = read_row(tmp_path / "data_overall.csv")
    assert row["Model"] == "org/my model v2" and row["Overall Acc"] == "0.42%"  # 10 % of (0.5 / 3) / 4
    assert row["Model Link"] == row["Organization"] == row["License"] == "N/A"
    assert set(registry) == before


def test_a_full_run_is_not_partial_and_a_limited_one_says_so():
    full = leaderboard(by_category({c: (1, n) for c, n in
                                    [(c, 400 if c == "simple_python" else 1) for c in LEADERBOARD_CATEGORIES]}))
    assert not full["partial"] and full["parts_missing"] == [] and full["subset"]
    assert full["non_live"]["complete"] and full["non_live"]["weight"] == 0.1
