"""A sample's call document is the same whether it is written with the sample (a trajectory of Step
objects) or built by the migration step from the stored row (the same steps as JSON): the strings of
each step's fields, not its repr."""
from __future__ import annotations

from evalui.run.trajectory import Step
from evalui.store.rows import _dumps, _loads
from evalui.store.search import call_part


def test_a_live_trajectory_and_its_stored_json_give_one_document():
    request = {"messages": [{"role": "user", "content": "weather in Zürich?"}], "tools": [{"name": "docs_only"}]}
    steps = [Step(messages=[{"role": "user", "content": "weather in Zürich?"}], text="it's 'sunny'\nsecond line",
                  tool_calls=[{"name": "get_forecast", "arguments": '{"city": "Zürich"}'}],
                  tool_results=[{"name": "get_forecast", "content": "drizzle\ntomorrow", "error": None}],
                  prompt_tokens=3, completion_tokens=2, latency_s=0.1, note="kept")]
    live = call_part(request, {"text": "ignored: the steps are the reply"}, steps, None)
    stored = call_part(_loads(_dumps(request)), None, _loads(_dumps(steps)), None)
    assert live == stored
    lines = live.split("\n")
    assert "drizzle" in lines and "tomorrow" in lines and "second line" in lines  # not "drizzle\\ntomorrow"
    assert "get_forecast" in lines and "kept" in lines and "docs_only" not in live
    assert "Step(" not in live
