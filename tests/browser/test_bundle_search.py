"""The static bundle's search finds exactly the samples the app's search finds: the same queries go
to the store's full-text search (evalui.store.search, what the dashboard's viewer runs) and to the
bundle's own script in Chromium, on the same stored run, and list the same sample ids. The queries
include prefixes, pieces of an id split at its underscores, words of the tool calls, the checker's
reason and the endpoint's error, upper case and accented letters (the index folds both), and parts
of words that a substring match would find but the store's word match does not. The sample on show
marks as many hits as the dashboard's pane (evalui.viewer.transcript.highlighted) marks in it."""

from __future__ import annotations

import pytest
from viewer_runs import store_two_runs

from evalui.store import search as store_search
from evalui.store.run_store import RunStore
from evalui.viewer.bundle import bundle_data, search_parts, write_bundle
from evalui.viewer.transcript import highlighted

pytestmark = pytest.mark.browser

QUERIES = ["factorial", "fact", "act", "torial", "simple_python_4", "python 4", "simple python", "triangle",
           "broken", "always broken", "500", "50", "math.factorial", "onerror", "script", "SCRIPT",
           "img src", "zz_wrong", "wrong", "calculate area", "area calc", "e", "xyzzy", "number",
           "FACTORIAL", "factoríal", "Fáct", "façtorial", "计算", "simple-python-4", "(factorial)"]


@pytest.fixture()
def stored(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    store = RunStore()
    store_two_runs(store)
    yield store
    store.close()


def test_the_bundle_finds_what_the_app_finds(browser, stored, tmp_path):
    write_bundle(stored, "cand", tmp_path / "bundle")
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto((tmp_path / "bundle" / "index.html").as_uri())
    rows = page.locator("#evalui-rows tr[data-id]")
    rows.first.wait_for(timeout=30_000)
    panes = bundle_data(stored, "cand")["panes"]
    differs_from_substrings, marked = [], 0
    for query in QUERIES:
        page.locator("#evalui-search").fill(query)
        listed = [row.get_attribute("data-id") for row in rows.all()]
        found = store_search.search(stored, "cand", query)
        assert listed == found, query
        if found:  # the first sample found is on show, its hits marked as the dashboard marks them
            hits = highlighted(panes[found[0]], store_search.checked_phrases(query))[1]
            shown = page.locator("#evalui-detail mark.evalui-hit")
            assert (shown.count(), page.locator("#evalui-hits").get_attribute("data-hits")) == (hits, str(hits)), query
            marked += hits
        # What a substring match (the bundle's search before) would list: the query inside the words.
        within = [s.sample_id for s in stored.samples("cand") if query.lower() in "".join(search_parts(s))]
        differs_from_substrings.append(within != found)
    assert any(differs_from_substrings)  # the queries tell a word match from a substring match
    assert any(store_search.search(stored, "cand", q) for q in QUERIES) and marked  # and some find and mark


def test_the_bundle_pager_sits_above_the_list(browser, stored, tmp_path):
    write_bundle(stored, "cand", tmp_path / "bundle")
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto((tmp_path / "bundle" / "index.html").as_uri())
    page.locator("#evalui-rows tr[data-id]").first.wait_for(timeout=30_000)
    pager = page.locator("#evalui-list-pane .evalui-pager").bounding_box()
    table = page.locator("#evalui-list-pane table").bounding_box()
    assert pager["y"] + pager["height"] <= table["y"]
    assert "6" in page.locator("#evalui-page").inner_text()
