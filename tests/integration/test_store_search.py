"""Full-text search served by the store, on SQLite (FTS5) and PostgreSQL (tsvector): prompts, replies,
tool calls and tool output are found, the index follows the store (a changed sample is re-indexed,
a deleted run's samples go), and what a user types never reaches the query language as syntax."""
from __future__ import annotations

from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)
from unit.test_postgres_store import store_url  # noqa: F401  (a fixture: SQLite and PostgreSQL)

from evalui.engine import store_search
from evalui.engine.store import RunStore


def _answer(store, exp_id, sample_id, prompt, reply, tool_output, *, correct=True):
    step = {"messages": [{"role": "user", "content": prompt}], "text": reply,
            "tool_calls": [{"name": "get_forecast", "arguments": '{"city": "Zürich"}'}],
            "tool_results": [{"name": "get_forecast", "content": tool_output, "error": None}],
            "prompt_tokens": 3, "completion_tokens": 2, "latency_s": 0.1, "attempts": 1, "note": ""}
    store.record_rollout(exp_id, sample_id, request={"messages": [{"role": "user", "content": prompt}],
                                                     "tools": [{"function": {"name": "docs_only_word"}}]},
                         response={"text": reply}, latency_s=0.1, prompt_tokens=3, completion_tokens=2, attempts=1,
                         trajectory=[step])
    store.record_judgement(exp_id, sample_id, prediction=reply, correct=correct, verdict={})


def test_search_finds_prompts_replies_and_tool_output_and_follows_the_store(store_url):
    store = RunStore(url=store_url)
    store.create_or_get_experiment("e", "echo", "m", "h", {})
    store.add_samples("e", [(f"item_{i}", "g", {}) for i in range(4)])
    _answer(store, "e", "item_0", "What is the weather in Paris?", "Sunny in Paris.", "paris: 21C clear")
    _answer(store, "e", "item_1", "Tell me a joke", "Why did the chicken cross", "no tool output")
    _answer(store, "e", "item_2", "Weather in Zürich?", "It rains.", "zurich: drizzle 12C")
    assert store_search.search(store, "e", "paris") == ["item_0"]
    assert store_search.search(store, "e", "WEATHER") == ["item_0", "item_2"]  # case-insensitive, stored order
    assert store_search.search(store, "e", "drizzle") == ["item_2"]  # tool output
    assert store_search.search(store, "e", "chick") == ["item_1"]  # a prefix of a reply's word
    assert store_search.search(store, "e", "get_forecast") == ["item_0", "item_1", "item_2"]  # tool calls
    assert store_search.search(store, "e", "weather joke") == []  # every piece must be there
    assert store_search.search(store, "e", "item_3") == ["item_3"]  # the id (an unanswered sample)
    assert store_search.search(store, "e", "docs_only_word") == []  # function docs are not searched
    assert store_search.search(store, "e", "   ") is None  # no search at all
    for hostile in ('"; DROP TABLE samples; --', "paris OR NOT x*", "a:* & !b", "NEAR(x y)"):
        assert isinstance(store_search.search(store, "e", hostile), list)
    assert store_search.search(store, "e", "paris OR") == []  # "OR" is a word here, not an operator
    assert store_search.search(store, "e", "' \"") is None  # punctuation alone is no search
    assert store_search.refresh(store, "e") == 0  # nothing changed since: nothing re-indexed

    _answer(store, "e", "item_1", "Tell me a joke", "A pun about Paris.", "none", correct=False)  # answered again
    assert store_search.refresh(store, "e") == 1
    assert store_search.search(store, "e", "paris") == ["item_0", "item_1"]
    assert store_search.search(store, "e", "chicken") == []

    store.create_or_get_experiment("other", "echo", "m", "h", {})
    store.add_samples("other", [("item_0", "g", {})])
    _answer(store, "other", "item_0", "Paris again", "Paris.", "x")
    assert store_search.search(store, "e", "again") == []  # one run's search never returns another's
    store.delete_experiment("e")
    assert store_search.search(store, "e", "paris") == []
    assert store_search.search(store, "other", "paris") == ["item_0"]
    store.close()
