"""What bounds a search: the caps on a query's words and characters (refused with a message that names
the cap), the deadline's setting, and the read connections a search runs on instead of the store's
own. (The deadline stopping a slow search, with the runs listed meanwhile: integration/store/test_store_search.py.)"""
from __future__ import annotations

import sqlite3
import threading

import pytest

from evalui.errors import InputError
from evalui.store import search as store_search
from evalui.store.search import MAX_QUERY_CHARS, MAX_QUERY_TERMS, SearchRefused, checked_phrases
from evalui.viewer import data as viewer_data


def test_a_query_within_the_caps_is_parsed_and_one_over_them_is_refused_with_the_cap_named():
    assert checked_phrases(" ".join(["word"] * MAX_QUERY_TERMS)) == [["word"]] * MAX_QUERY_TERMS
    with pytest.raises(SearchRefused, match=f"at most {MAX_QUERY_TERMS} words; this one has {MAX_QUERY_TERMS + 1}"):
        checked_phrases(" ".join(["word"] * (MAX_QUERY_TERMS + 1)))
    # Words, not pieces, are counted: each is a term of the match. simple_python_4 holds three.
    assert len(checked_phrases(" ".join(["simple_python_4"] * 10))) == 10
    with pytest.raises(SearchRefused, match="this one has 33"):
        checked_phrases(" ".join(["simple_python_4"] * 11))

    longest = "x" * MAX_QUERY_CHARS
    assert checked_phrases(f"  {longest}\n") == [[longest]]  # the blanks around it are not counted
    with pytest.raises(SearchRefused, match=f"at most {MAX_QUERY_CHARS} characters; this one has {MAX_QUERY_CHARS + 1}"):
        checked_phrases(longest + "x")
    with pytest.raises(SearchRefused, match="at most 500 characters; this one has 1,048,576"):
        checked_phrases("a" * 1024 * 1024)  # a body at the request cap, refused by its length
    assert checked_phrases("") == [] and checked_phrases(None) == [] and checked_phrases("' \"") == []
    assert issubclass(SearchRefused, InputError)  # the viewer shows an InputError as a warning, the API as its message


def test_the_deadline_is_five_seconds_unless_the_setting_says_otherwise(monkeypatch):
    monkeypatch.delenv(store_search.SEARCH_DEADLINE_ENV, raising=False)
    assert store_search.search_deadline_s() == store_search.SEARCH_DEADLINE_S == 5.0
    monkeypatch.setenv(store_search.SEARCH_DEADLINE_ENV, "0.25")
    assert store_search.search_deadline_s() == 0.25
    for bad in ("0", "-3", "soon"):
        monkeypatch.setenv(store_search.SEARCH_DEADLINE_ENV, bad)
        assert store_search.search_deadline_s() == 5.0


def test_the_viewer_refuses_a_query_over_the_caps(store):
    store.create_or_get_experiment("e", "echo", "m", "h", {})
    store.add_samples("e", [("item_0", "g", {})])
    with pytest.raises(SearchRefused, match="words"):
        viewer_data.listing(store, "e", text=" ".join(["a"] * 20_000))
    with pytest.raises(SearchRefused, match="characters"):
        viewer_data.search_ids(store, "e", "a" * (MAX_QUERY_CHARS + 1))
    assert viewer_data.search_ids(store, "e", "item") == ["item_0"]


def test_a_reader_is_a_connection_of_its_own_kept_for_the_next_read_and_dropped_after_an_error(store):
    store.create_or_get_experiment("e", "echo", "m", "h", {})
    held, release = threading.Event(), threading.Event()

    def hold_the_store():
        with store._lock:  # what a long read on the store's own connection holds
            held.set()
            release.wait(60)

    holder = threading.Thread(target=hold_the_store, daemon=True)
    holder.start()
    assert held.wait(60)
    try:
        with store.reader() as db:
            assert db is not store._db
            assert [r["exp_id"] for r in db.execute("SELECT exp_id FROM experiments")] == ["e"]
            with pytest.raises(sqlite3.OperationalError, match="readonly"):
                db.execute("DELETE FROM experiments")
        first = db
    finally:
        release.set()
        holder.join(60)

    with store.reader() as again:
        assert again is first  # kept, not opened again
    with pytest.raises(RuntimeError), store.reader() as broken:
        raise RuntimeError("a read that failed")
    with pytest.raises(sqlite3.ProgrammingError):
        broken.execute("SELECT 1")  # closed, not kept
    with store.reader() as fresh:
        assert fresh is not broken
    store.close()
    with pytest.raises(sqlite3.ProgrammingError):
        fresh.execute("SELECT 1")  # the store's close closes its idle readers
