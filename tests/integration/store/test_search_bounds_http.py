"""A search through the page's named endpoints (/viewer_search, /viewer_samples) is bounded: a query over
the caps is refused with a message naming the cap, /runs_list answers while a slow search runs, and the
deadline stops that search with a message saying to narrow it."""
from __future__ import annotations

import json

import pytest
from app_client import app_client, launch_demo
from waiting import HANG_S, wait_for

from evalui.store import search as store_search
from evalui.store.run_store import RunStore
from integration.store.test_store_search import SLOW_QUERY, matching, store_slow_run


@pytest.fixture()
def app_url(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    store = RunStore()
    store_slow_run(store)
    from evalui.ui import build_demo

    demo = build_demo(store)
    demo.queue()
    _, url, _ = launch_demo(demo)
    yield url
    demo.close()
    store.close()


def test_searches_are_bounded_through_the_endpoints_and_the_runs_list_answers_meanwhile(app_url, monkeypatch):
    client, lister = app_client(app_url, verbose=False), app_client(app_url, verbose=False)
    words = store_search.MAX_QUERY_TERMS
    with pytest.raises(Exception, match=f"at most {words} words; this one has {words + 1}"):
        client.predict("slow", " ".join(["a"] * (words + 1)), api_name="/viewer_search")
    with pytest.raises(Exception, match=f"at most {store_search.MAX_QUERY_CHARS} characters"):
        client.predict("slow", "all", "all", "all", "all", "a" * 20_000, "position", False, 0,
                       api_name="/viewer_samples")
    assert client.predict("slow", "s199", api_name="/viewer_search") == ["s199"]

    monkeypatch.setenv(store_search.SEARCH_DEADLINE_ENV, "1.5")  # read by the app in this process
    job = client.submit("slow", SLOW_QUERY, api_name="/viewer_search")
    wait_for(lambda: matching() or job.done(), "the app's search reaching its match")
    assert not job.done(), "the search ended before its match could be watched"
    listed = lister.predict(api_name="/runs_list")
    assert matching() and not job.done(), "/runs_list answered only once the search had ended"
    assert '"slow"' in json.dumps(listed, default=str)
    with pytest.raises(Exception, match="took too long .*narrow it"):
        job.result(timeout=HANG_S)
