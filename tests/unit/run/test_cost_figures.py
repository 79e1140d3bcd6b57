"""Cost figures by hand, the price look-up's order, the pinned table's provenance, the meter's
budget and estimate, and the Pareto front."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from evalui.run import pricing
from evalui.run.pricing import BudgetGate, CostMeter, load_prices, model_key, resolve, run_cost
from evalui.stats.cost import cost_figures, estimate_total, pareto_front, tokens_cost

pytestmark = pytest.mark.unit


def sample(prompt, completion, correct, stage="judged"):
    return SimpleNamespace(prompt_tokens=prompt, completion_tokens=completion, correct=correct, stage=stage)


def test_costs_match_a_hand_computation():
    # 1,200 prompt tokens at $2.50/M and 300 completion tokens at $10/M: 0.003 + 0.003 = $0.006.
    assert tokens_cost(1200, 300, 2.5, 10.0) == pytest.approx(0.006)
    samples = [sample(1200, 300, True), sample(1000, 100, False), sample(0, 0, False, stage="init"),
               sample(800, 200, True)]
    figures = cost_figures(((s.prompt_tokens, s.completion_tokens, s.correct) for s in samples), 2.5, 10.0)
    total = (3000 * 2.5 + 600 * 10.0) / 1e6  # 0.0135
    assert figures["usd"] == pytest.approx(total)
    assert figures["per_sample_usd"] == pytest.approx(total / 3)  # the unasked sample spent nothing
    assert figures["per_correct_usd"] == pytest.approx(total / 2)
    assert (figures["input_tokens"], figures["output_tokens"], figures["correct"]) == (3000, 600, 2)


def test_a_run_with_no_correct_answer_has_no_cost_per_correct_answer():
    assert cost_figures([(100, 10, False)], 1.0, 1.0)["per_correct_usd"] is None
    assert run_cost([sample(100, 10, True)], None) == {"usd": None, "per_sample_usd": None,
                                                       "per_correct_usd": None, "priced_by": None}


def test_only_judged_correct_samples_count_as_correct():
    price = {"input_per_m": 1.0, "output_per_m": 1.0, "priced_by": "run"}
    figures = run_cost([sample(500_000, 500_000, True), sample(0, 0, True, stage="rollout")], price)
    assert figures["usd"] == pytest.approx(1.0) and figures["per_correct_usd"] == pytest.approx(1.0)


@pytest.mark.parametrize("name, key", [
    ("gpt-4o-mini", "gpt-4o-mini"), ("openai/gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"), ("GPT-4.1", "gpt-4.1"), ("Qwen/Qwen3-8B", "qwen3-8b")])
def test_model_names_are_matched_without_provider_or_snapshot_date(name, key):
    assert model_key(name) == key


def test_prices_given_with_the_run_win_then_the_file_then_the_table(tmp_path, monkeypatch):
    monkeypatch.delenv(pricing.PRICES_ENV, raising=False)
    assert resolve("gpt-4o", 1.0, 2.0)["priced_by"] == "run"
    assert resolve("gpt-4o")["priced_by"] == "table" and resolve("gpt-4o")["input_per_m"] == 2.5
    assert resolve("my-own-model") is None
    table = tmp_path / "mine.json"
    table.write_text(json.dumps({"models": {"gpt-4o": {"input_per_m": 0.5, "output_per_m": 1.5}}}))
    monkeypatch.setenv(pricing.PRICES_ENV, str(table))
    found = resolve("gpt-4o-2024-11-20")
    assert (found["priced_by"], found["input_per_m"], found["output_per_m"], found["file"]) == ("file", 0.5, 1.5, "mine.json")
    assert resolve("gpt-4o-mini")["priced_by"] == "table"  # not in the file: the table's
    assert resolve("gpt-4o", 3.0, 4.0)["priced_by"] == "run"


@pytest.mark.parametrize("content", ['{"models": {"a": {"input_per_m": 1}}}', '{"models": {"a": {"input_per_m": -1, '
                                     '"output_per_m": 1}}}', "[1, 2]", "not json"])
def test_a_broken_prices_file_is_refused(tmp_path, content):
    path = tmp_path / "prices.json"
    path.write_text(content)
    with pytest.raises(ValueError, match="prices file"):
        load_prices(path)


def test_the_pinned_table_is_dated_and_names_a_source_for_every_entry():
    raw = json.loads(pricing.pinned_table().read_text())
    assert raw["kind"] == "snapshot" and raw["as_of"] and raw["unit"] == "USD per million tokens"
    for name, entry in raw["models"].items():
        assert entry["source"].startswith("https://"), name
        assert entry["as_of"][:4].isdigit() and entry["vendor"], name
        assert 0 < entry["input_per_m"] <= entry["output_per_m"], name


def test_the_meter_estimates_the_run_after_five_answers_and_says_when_the_budget_is_spent():
    meter = CostMeter({"input_per_m": 1.0, "output_per_m": 1.0}, total=20, max_cost_usd=0.01)
    for _answered in range(1, 5):
        meter.add(1000, 0)
        assert meter.estimate_usd() is None and not meter.spent_out
    meter.add(1000, 0)
    assert meter.estimate_usd() == pytest.approx(0.001 * 20) == estimate_total(0.005, 5, 20)
    meter.add(0, 0)  # a sample that spent nothing is not an answer
    assert meter.answered == 5
    for _ in range(5):
        meter.add(1000, 0)
    assert meter.spent_out and meter.stop_message().startswith("budget_spent: $0.0100 spent of the $0.0100 budget")


def test_the_gate_hands_out_samples_until_the_budget_is_spent():
    meter = CostMeter({"input_per_m": 1.0, "output_per_m": 0.0}, total=5, max_cost_usd=0.002)
    gate = BudgetGate(iter(["a", "b", "c", "d"]), meter)
    taken = []
    for name in gate:
        taken.append(name)
        meter.add(1000, 0)
    assert taken == ["a", "b"]


def test_the_meter_starts_from_what_earlier_sessions_spent():
    meter = CostMeter.for_run([sample(1000, 0, True), sample(0, 0, False, stage="init")],
                              {"input_per_m": 1.0, "output_per_m": 1.0}, max_cost_usd=0.001)
    assert meter.spent_usd == pytest.approx(0.001) and meter.answered == 1 and meter.total == 2 and meter.spent_out


@pytest.mark.parametrize("points, front", [
    ([(1.0, 0.5), (2.0, 0.7), (3.0, 0.6), (0.5, 0.4)], [3, 0, 1]),  # (3.0, 0.6) costs more for less
    ([(1.0, 0.5), (1.0, 0.6)], [1]),  # as dear and more accurate
    ([(1.0, 0.5), (2.0, 0.5)], [0]),  # as accurate and cheaper
    ([(1.0, 0.5), (1.0, 0.5)], [0, 1]),  # the same point twice: neither beats the other
    ([], []),
])
def test_the_pareto_front_keeps_the_runs_no_other_beats(points, front):
    assert pareto_front(points) == front


@pytest.mark.parametrize("given", [(0, 0), (0.0, None), (None, 0), (None, None)])
def test_price_fields_left_at_0_or_empty_are_no_price(monkeypatch, given):
    monkeypatch.delenv(pricing.PRICES_ENV, raising=False)
    # The table's price where the model has a line, else none: never a run priced at $0.
    found = resolve("gpt-4o-mini", *given)
    assert (found["priced_by"], found["input_per_m"], found["output_per_m"]) == ("table", 0.15, 0.60)
    assert resolve("my-own-model", *given) is None


def test_a_0_beside_a_real_price_is_a_price(monkeypatch):
    monkeypatch.delenv(pricing.PRICES_ENV, raising=False)
    found = resolve("my-own-model", 0, 2.0)
    assert (found["priced_by"], found["input_per_m"], found["output_per_m"]) == ("run", 0.0, 2.0)
    assert resolve("my-own-model", 1.5, None)["output_per_m"] == 0.0


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_a_price_no_cost_can_be_computed_at_is_still_refused(bad):
    with pytest.raises(ValueError, match="must be from 0"):
        resolve("my-own-model", bad, 0)


def test_a_stored_run_price_of_0_is_unpriced():
    # Runs prepared before 0 meant "no price" kept the run's own price of $0.
    stored = {"input_per_m": 0.0, "output_per_m": 0.0, "priced_by": "run", "source": "prices given with the run"}
    assert pricing.usable(stored) is None and pricing.usable(None) is None
    assert run_cost([sample(1000, 100, True)], stored) == {"usd": None, "per_sample_usd": None,
                                                           "per_correct_usd": None, "priced_by": None}
    assert pricing.sample_cost(stored, 1000, 100) is None
    # A file's 0 was written on purpose (a model that is free to run): it stays a price.
    free = {"input_per_m": 0.0, "output_per_m": 0.0, "priced_by": "file", "model_key": "mine"}
    assert pricing.usable(free) is free and run_cost([sample(1000, 100, True)], free)["usd"] == 0.0
    assert pricing.unpriced({"usd": 0.0, "priced_by": "run", "price": stored})
    assert not pricing.unpriced({"usd": 0.0, "priced_by": "file", "price": free})
    assert pricing.unpriced({"usd": None, "priced_by": None}) and pricing.unpriced({})
