"""The report's cost section, from a summary's cost figures."""

from __future__ import annotations

import pytest

from evalui.reports.cost import cost_lines

pytestmark = pytest.mark.unit


def test_the_cost_section_gives_the_cost_per_correct_answer_and_where_the_price_came_from():
    price = {"input_per_m": 0.15, "output_per_m": 0.6, "priced_by": "table", "model_key": "gpt-4o-mini",
             "source": "https://developers.openai.com/api/docs/pricing", "as_of": "2026-03"}
    summary = {"status": "budget_spent", "cost": {"usd": 0.0039, "per_sample_usd": 0.00039, "per_correct_usd": 0.00078,
                                                  "input_tokens": 10000, "output_tokens": 4000, "priced_by": "table",
                                                  "price": price, "max_cost_usd": 0.001}}
    text = "\n".join(cost_lines(summary))
    assert "Cost of the run: **$0.0039** (10000 input and 4000 output tokens" in text
    assert "per correct answer: **$0.0008**" in text
    assert "from evalui's pinned price table, https" in text and "developers.openai.com/api/docs/pricing as of 2026-03" in text
    assert "Budget (--max-cost): $0.0010 — spent" in text


def test_a_run_without_a_price_says_how_to_give_one_and_an_old_summary_says_nothing():
    assert "--price-input" in "\n".join(cost_lines({"cost": {"usd": None, "priced_by": None}}))
    assert cost_lines({}) == []
