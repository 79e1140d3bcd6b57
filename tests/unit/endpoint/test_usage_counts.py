"""A reply's usage, as evalui reads it: honest counts are taken, counts that lie (negative, not whole,
not numbers, past the bound) refuse the reply with a message naming the field; and what is built
from counts (costs, a stored row's count) stays finite, non-negative and within its column."""

from __future__ import annotations

import json
import math

import pytest

from evalui.endpoint.completion import MAX_REPLY_TOKENS, _Failure, parse_completion, usage_tokens
from evalui.run.pricing import MAX_PRICE_PER_M, CostMeter, load_prices, resolve
from evalui.stats.cost import cost_figures, tokens_cost
from evalui.store.counts import MAX_SAMPLE_TOKENS, stored_tokens

pytestmark = pytest.mark.unit


def reply_with(usage) -> dict:
    return {"choices": [{"message": {"role": "assistant", "content": "4"}, "finish_reason": "stop"}], "usage": usage}


@pytest.mark.parametrize("usage, counts", [
    ({"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}, (12, 3)),
    ({"prompt_tokens": 12.0, "completion_tokens": 3.0}, (12, 3)),  # whole floats, as some servers write them
    ({"prompt_tokens": 0, "completion_tokens": MAX_REPLY_TOKENS}, (0, MAX_REPLY_TOKENS)),  # the bound is allowed
    ({"prompt_tokens": None, "completion_tokens": 5}, (0, 5)),  # null: not reported
    ({"completion_tokens": 5}, (0, 5)),
    ({}, (0, 0)),
    (None, (0, 0)),  # many local servers send no usage
])
def test_honest_usage_is_read(usage, counts):
    assert usage_tokens(usage) == counts
    reply = parse_completion(reply_with(usage))
    assert (reply.prompt_tokens, reply.completion_tokens) == counts


@pytest.mark.parametrize("field, value, shown", [
    ("prompt_tokens", -1_000_000, "-1000000"),
    ("completion_tokens", -1, "-1"),
    ("prompt_tokens", 1.5e19, "1.5e+19"),
    ("completion_tokens", 15_000_000_000_000_000_000, "15000000000000000000"),
    ("prompt_tokens", 2**200, "a 201-bit integer"),  # never thousands of digits in a message
    ("prompt_tokens", MAX_REPLY_TOKENS + 1, str(MAX_REPLY_TOKENS + 1)),
    ("completion_tokens", math.nan, "nan"),
    ("prompt_tokens", math.inf, "inf"),
    ("completion_tokens", -math.inf, "-inf"),
    ("prompt_tokens", 12.5, "12.5"),
    ("prompt_tokens", "12", "'12'"),
    ("completion_tokens", True, "True"),  # a bool is an int to Python, not a count
    ("prompt_tokens", False, "False"),
    ("prompt_tokens", [12], "a list"),
    ("completion_tokens", {"n": 12}, "an object"),
])
def test_a_count_that_lies_refuses_the_reply_and_names_the_field(field, value, shown):
    usage = {"prompt_tokens": 10, "completion_tokens": 10, field: value}
    with pytest.raises(ValueError) as refused:
        usage_tokens(usage)
    assert str(refused.value) == (f"the usage's {field} is {shown}; a token count is a whole number "
                                  f"from 0 to {MAX_REPLY_TOKENS:,}")
    with pytest.raises(_Failure) as failed:
        parse_completion(reply_with(usage))
    # The failure path of any malformed reply: kind bad_response, retried like one.
    assert failed.value.kind == "bad_response" and failed.value.retryable and str(failed.value) == str(refused.value)


def test_a_long_string_is_cut_in_the_message():
    with pytest.raises(ValueError) as refused:
        usage_tokens({"prompt_tokens": "9" * 10_000})
    assert f"'{'9' * 40}'…;" in str(refused.value) and len(str(refused.value)) < 200


@pytest.mark.parametrize("usage, shown", [("lots", "'lots'"), ([1, 2], "a list"), (7, "7"), (True, "True")])
def test_a_usage_that_is_not_an_object_refuses_the_reply(usage, shown):
    with pytest.raises(ValueError, match=f"^the usage is {shown}, not an object of token counts$"):
        usage_tokens(usage)


def test_a_negative_count_from_an_older_store_costs_nothing():
    assert tokens_cost(-1_000_000, 500, 2.0, 8.0) == pytest.approx(500 * 8.0 / 1e6)
    figures = cost_figures([(-1_000_000, -5, False), (1000, 500, True)], 2.0, 8.0)
    assert figures["usd"] == pytest.approx((1000 * 2.0 + 500 * 8.0) / 1e6)
    assert (figures["input_tokens"], figures["output_tokens"], figures["samples_billed"]) == (1000, 500, 1)
    meter = CostMeter({"input_per_m": 2.0, "output_per_m": 8.0}, total=3, max_cost_usd=0.01, spent_usd=0.0)
    meter.add(-1_000_000, 0)
    assert meter.spent_usd == 0.0


def test_the_dearest_reply_at_the_dearest_price_costs_a_finite_amount():
    cost = tokens_cost(MAX_REPLY_TOKENS, MAX_REPLY_TOKENS, MAX_PRICE_PER_M, MAX_PRICE_PER_M)
    assert math.isfinite(cost) and cost == pytest.approx(2e7)


@pytest.mark.parametrize("price", [-1.0, math.nan, math.inf, MAX_PRICE_PER_M * 2])
def test_a_price_no_cost_can_be_computed_at_is_refused(price, tmp_path):
    with pytest.raises(ValueError, match="price per million input tokens"):
        resolve("m", price, 1.0)
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"models": {"m": {"input_per_m": 1.0, "output_per_m": price}}}))  # NaN, Infinity
    with pytest.raises(ValueError, match="output_per_m"):
        load_prices(path)


@pytest.mark.parametrize("count, stored", [(12, 12), (-5, 0), (2**70, MAX_SAMPLE_TOKENS),
                                           (MAX_SAMPLE_TOKENS, MAX_SAMPLE_TOKENS)])
def test_a_rows_count_is_kept_within_what_a_runs_sum_can_hold(count, stored):
    assert stored_tokens(count) == stored
    # A million samples at the bound, prompt and completion, stay within a signed 64-bit sum.
    assert 2 * MAX_SAMPLE_TOKENS * 1_000_000 < 2**63 - 1
