"""Full-text search served by the store, on SQLite (FTS5) and PostgreSQL (tsvector): prompts, replies,
tool calls and tool output are found, the index follows the store as it is written (a changed sample is
re-indexed, a deleted run's samples go), and what a user types never reaches the query language as syntax.
A search is bounded: the runs are listed while one runs, and its deadline stops it with a clear error."""
from __future__ import annotations

import itertools
import string
import sys
import threading

import pytest
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)
from unit.store.test_postgres_store import store_url  # noqa: F401  (a fixture: SQLite and PostgreSQL)
from waiting import HANG_S, wait_for

from evalui.ops import history
from evalui.store import search as store_search
from evalui.store.run_store import RunStore

# Within the caps and slow on purpose: 16 two-word phrases, each matching at every position of samples
# that hold nothing but "a a a …" (200 of them took 5.6 s on SQLite). PostgreSQL keeps at most 256
# positions of a word, so there the samples alternate "a" with 17,576 words that start with "a", and the
# prefix makes each phrase look at all of them: 100 samples took 1.7 s (the deadline there is 0.5 s).
SLOW_QUERY = " ".join(["a_a"] * 16)
SLOW_SAMPLES = 200
SLOW_DEADLINE_S = {"sqlite": "1.5", "postgresql": "0.5"}


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

    _answer(store, "e", "item_1", "Tell me a joke", "A pun about Paris.", "none", correct=False)  # answered again
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


def store_slow_run(store, exp_id: str = "slow", count: int = SLOW_SAMPLES) -> None:
    """A run whose samples make SLOW_QUERY slow, indexed already (a search then only matches)."""
    store.create_or_get_experiment(exp_id, "echo", "m", "h", {})
    if store.dialect == "postgresql":
        count //= 2
        words = ["a" + "".join(letters) for letters in itertools.product(string.ascii_lowercase, repeat=3)]
        prompt = " ".join(f"a {words[(k * 7919) % len(words)]}" for k in range(20_000))
    else:
        prompt = "a " * (store_search.MAX_BODY_CHARS // 2)
    store.add_samples(exp_id, [(f"s{i}", "g", {}) for i in range(count)])
    for i in range(count):
        store.record_rollout(exp_id, f"s{i}", request={"messages": [{"role": "user", "content": prompt}]},
                             response={"text": "b"}, latency_s=0.1, prompt_tokens=1, completion_tokens=1, attempts=1,
                             wait=False)
    store.flush()  # indexed as it was stored: a search then only matches


def matching(thread: threading.Thread | None = None) -> bool:
    """Whether ``thread`` (else any thread of this process) is inside a search's match: its SQL running
    on the search's own connection. Read from the threads' frames, so nothing of the search is changed."""
    codes = {store_search._sqlite_match.__code__, store_search._postgres_match.__code__}
    for ident, frame in sys._current_frames().items():
        if thread is not None and ident != thread.ident:
            continue
        while frame is not None:
            if frame.f_code in codes:
                return True
            frame = frame.f_back
    return False


def test_runs_are_listed_while_a_search_runs_and_its_deadline_stops_it(store_url, monkeypatch):
    store = RunStore(url=store_url)
    deadline = SLOW_DEADLINE_S[store.dialect]
    monkeypatch.setenv(store_search.SEARCH_DEADLINE_ENV, deadline)  # SLOW_QUERY takes several times as long
    store_slow_run(store)
    store.create_or_get_experiment("quick", "echo", "m", "h", {})
    store.add_samples("quick", [("item_0", "g", {}), ("item_1", "g", {})])
    outcome: dict = {}
    done = threading.Event()

    def searching():
        try:
            outcome["ids"] = store_search.search(store, "slow", SLOW_QUERY)
        except Exception as exc:
            outcome["error"] = exc
        done.set()

    thread = threading.Thread(target=searching, name="slow-search", daemon=True)
    thread.start()
    wait_for(lambda: matching(thread) or done.is_set(), "the search reaching its match")
    assert not done.is_set(), f"the search ended before its match could be watched: {outcome}"
    # The store's lock, held for the whole search before, made these wait for it (26 s for /runs_list).
    listed = history.runs_frame(store)
    rows = store.sample_rows("slow")
    assert matching(thread) and not done.is_set(), "the runs were listed only once the search had ended"
    assert set(listed["exp_id"]) == {"slow", "quick"} and len(rows) == store.progress("slow")["total"] > 0

    assert done.wait(HANG_S), "the deadline never stopped the search"
    error = outcome.get("error")
    assert isinstance(error, store_search.SearchRefused), outcome
    assert "took too long" in str(error) and "narrow it" in str(error) and f"{deadline} s" in str(error)

    # The connection the deadline stopped is not handed to the next search, which answers as before.
    monkeypatch.delenv(store_search.SEARCH_DEADLINE_ENV)
    assert store_search.search(store, "quick", "item_1") == ["item_1"]
    assert store_search.search(store, "quick", "zzz") == []
    store.close()


def test_a_query_over_the_caps_is_refused_before_the_store_is_read(store_url):
    store = RunStore(url=store_url)
    store.create_or_get_experiment("e", "echo", "m", "h", {})
    store.add_samples("e", [("item_0", "g", {})])
    with pytest.raises(store_search.SearchRefused, match="at most"):
        store_search.search(store, "e", " ".join(["a"] * 20_000))  # the query that took 109 s
    with pytest.raises(store_search.SearchRefused, match=f"at most {store_search.MAX_QUERY_TERMS} words"):
        store_search.search(store, "e", " ".join(["a"] * (store_search.MAX_QUERY_TERMS + 1)))
    with pytest.raises(store_search.SearchRefused, match=f"at most {store_search.MAX_QUERY_CHARS} characters"):
        store_search.search(store, "e", "a " * 500_000)  # what the 1 MiB request-body cap lets through
    assert store_search.search(store, "e", " ".join(["item_0"] * (store_search.MAX_QUERY_TERMS // 2))) == ["item_0"]
    store.close()
