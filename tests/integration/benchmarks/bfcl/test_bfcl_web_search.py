"""BFCL's web-search backend against a web on 127.0.0.1: bfcl-eval's own WebSearchAPI is the reference.

The same upstream answers (a SerpAPI payload, the same results from a SearXNG endpoint or a
plug-in, the same pages) must give the model the same text through evalui's backend as through
bfcl's, in both snippet settings and all fetch modes; a recording replays with the server gone;
a replay miss sends nothing; private addresses stay closed; the SerpAPI key is written nowhere.
"""

from __future__ import annotations

import importlib
import logging
import socket
import threading

import pytest
from bfcl_web_server import SERPAPI_KEY, CannedWeb, FakeWeb

from evalui.benchmarks.bfcl.agentic.web_record import recording_files, recording_hash
from evalui.benchmarks.bfcl.agentic.web_search import (
    WebSearchOptions,
    check_web_options,
    new_web_search_api,
    web_provenance,
)

PAGES = ("/page", "/latin", "/moved", "/gone")
MODES = ("raw", "markdown", "truncate", "html")  # the last is not a mode: bfcl's error for it, too


@pytest.fixture
def web_env(monkeypatch):
    for name in ("EVALUI_BFCL_WEB_SEARCH", "EVALUI_WEB_SEARCH_URL", "EVALUI_WEB_ALLOW_HOSTS", "EVALUI_SERPAPI_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SERPAPI_API_KEY", SERPAPI_KEY)
    return monkeypatch


@pytest.fixture
def web(web_env):
    with FakeWeb() as server:
        web_env.setenv("EVALUI_SERPAPI_URL", server.url(""))
        web_env.setenv("EVALUI_WEB_ALLOW_HOSTS", f"127.0.0.1:{server.port}")
        yield server


def official_api(web_env, web, show_snippet: bool):
    """bfcl-eval's own class, its SerpAPI client pointed at the local server (requests reach it as they are)."""
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING
    from serpapi.serp_api_client import SerpApiClient

    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()
    web_env.setattr(SerpApiClient, "BACKEND", web.url(""))
    api = importlib.import_module(CLASS_FILE_PATH_MAPPING["WebSearchAPI"]).WebSearchAPI()
    api._load_scenario({"show_snippet": show_snippet})
    return api


def evalui_api(options: WebSearchOptions, show_snippet: bool):
    api = new_web_search_api(check_web_options(options))
    api._load_scenario({"show_snippet": show_snippet})
    return api


def conversation(api, web) -> list:
    """What a model could ask of the web in one entry, and what it was shown."""
    shown = [api.search_engine_query("prices in April 2025"),
             api.search_engine_query("prices in April 2025", max_results=3, region="de-de"),
             api.search_engine_query("prices in April 2025", max_results=20)]
    for path in PAGES:
        shown += [api.fetch_url_content(web.url(path), mode) for mode in MODES]
    return shown


@pytest.mark.parametrize("show_snippet", [True, False])
def test_serpapi_search_and_every_fetch_mode_give_bfcls_own_text(web_env, web, show_snippet):
    reference = conversation(official_api(web_env, web, show_snippet), web)
    asked_by_bfcl = list(web.serpapi_queries)
    ours = conversation(evalui_api(WebSearchOptions(provider="serpapi"), show_snippet), web)
    assert ours == reference
    assert web.serpapi_queries[len(asked_by_bfcl):] == asked_by_bfcl  # the same parameters reach SerpAPI
    assert asked_by_bfcl[1] == {"engine": "duckduckgo", "q": "prices in April 2025", "kl": "de-de",
                                "api_key": SERPAPI_KEY, "source": "python", "output": "json"}
    assert ("body" in reference[0][0]) is show_snippet and len(reference[1]) == 3 and len(reference[2]) == 12
    assert reference[3]["content"].startswith("<!DOCTYPE html>") and "42 €" in reference[5]["content"]
    assert "Grüße aus Köln" in reference[7]["content"]  # Latin-1 without a charset, decoded as requests does
    assert reference[11]["content"] == reference[3]["content"]  # the redirect was followed
    assert reference[15] == {"error": f"An error occurred while fetching {web.url('/gone')}: "
                                      f"410 Client Error: Gone for url: {web.url('/gone')}"}


def test_a_search_without_results_is_bfcls_own_error(web_env, web):
    expected = official_api(web_env, web, True).search_engine_query("nothing at all")
    assert evalui_api(WebSearchOptions(provider="serpapi"), True).search_engine_query("nothing at all") == expected
    assert expected == {"error": "Failed to retrieve the search results from server. Please try again later."}


@pytest.mark.parametrize("show_snippet", [True, False])
def test_searxng_and_a_plugin_show_what_bfcl_shows_for_the_same_results(web_env, web, show_snippet):
    reference = official_api(web_env, web, show_snippet)
    expected = [reference.search_engine_query("prices"), reference.search_engine_query("prices", max_results=2)]
    web_env.setenv("EVALUI_WEB_SEARCH_URL", web.url("/searxng?q={query}&format=json"))
    searxng = evalui_api(WebSearchOptions(provider="searxng"), show_snippet)
    assert [searxng.search_engine_query("prices"), searxng.search_engine_query("prices", max_results=2)] == expected
    assert web.requests[-1] == "/searxng?q=prices&format=json"
    assert [searxng.fetch_url_content(web.url("/page"), mode) for mode in MODES] == \
        [reference.fetch_url_content(web.url("/page"), mode) for mode in MODES]

    pages = [reference.fetch_url_content(web.url("/page"), mode) for mode in MODES[:3]]
    plugin = evalui_api(WebSearchOptions(provider="bfcl_web_server:CannedWeb"), show_snippet)
    asked = len(web.requests)
    assert [plugin.search_engine_query("prices"), plugin.search_engine_query("prices", max_results=2)] == expected
    assert [plugin.fetch_url_content("https://example.org/r1", mode) for mode in MODES[:3]] == pages
    assert len(web.requests) == asked and CannedWeb.asked[-1] == "https://example.org/r1"  # the plug-in answered


def test_a_recorded_run_replays_identically_with_the_network_gone(web_env, web, tmp_path):
    recording = tmp_path / "web"
    recorder = [evalui_api(WebSearchOptions(provider="serpapi", record_dir=str(recording)), snippet)
                for snippet in (True, False)]
    recorded = [conversation(api, web) for api in recorder]
    inside = recorder[0].fetch_url_content(web.url("/inside"), "truncate")  # refused: the error is kept too
    assert "public addresses only" in inside["error"]
    provenance = web_provenance(check_web_options(WebSearchOptions(provider="serpapi", record_dir=str(recording))))
    assert provenance["web_recording_sha256"] == recording_hash(recording)
    # Three searches and four pages per entry; the second entry (no snippets) asked nothing new.
    assert len(recording_files(recording)) == 2 + 4 + 1 and provenance["web_recording_entries"] == 7
    web.stop()

    options = check_web_options(WebSearchOptions(replay_dir=str(recording)))
    replayer = [evalui_api(options, snippet) for snippet in (True, False)]
    assert [conversation(api, web) for api in replayer] == recorded
    assert replayer[0].fetch_url_content(web.url("/inside"), "truncate") == inside
    assert [api.web.failures for api in replayer] == [api.web.failures for api in recorder]
    assert web_provenance(options) == provenance | {"web_backend": "replay", "web_mode": "replay"}


def test_a_replay_miss_is_an_error_result_and_reaches_no_network(web_env, web, tmp_path):
    recording = tmp_path / "web"
    evalui_api(WebSearchOptions(provider="serpapi", record_dir=str(recording)), True).search_engine_query("known")
    asked = list(web.requests)
    api = evalui_api(WebSearchOptions(replay_dir=str(recording)), True)
    assert len(api.search_engine_query("known")) == 10
    missed_search = api.search_engine_query("unknown")
    missed_page = api.fetch_url_content(web.url("/page"), "markdown")
    assert web.requests == asked  # the server was up, and heard nothing
    assert missed_search == {
        "error": "the web recording has no answer for this search (a replayed run never goes online)"}
    assert missed_page == {"error": f"An error occurred while fetching {web.url('/page')}: the web recording has no "
                                    "answer for this fetch (a replayed run never goes online)"}
    assert api.web.failures == ["web_replay_miss", "web_replay_miss"]


def test_private_addresses_are_refused_unless_the_operator_opens_them(web_env, web):
    web_env.delenv("EVALUI_WEB_ALLOW_HOSTS")
    api = evalui_api(WebSearchOptions(provider="serpapi"), True)
    refused = api.fetch_url_content(web.url("/page"), "raw")
    assert "resolves to a loopback" in refused["error"] and "EVALUI_WEB_ALLOW_HOSTS" in refused["error"]
    assert not any(path.startswith("/page") for path in web.requests) and api.web.failures == ["web_refused"]

    web_env.setenv("EVALUI_WEB_ALLOW_HOSTS", f"127.0.0.1:{web.port}")
    assert "42 €" in api.fetch_url_content(web.url("/page"), "truncate")["content"]
    inside = api.fetch_url_content(web.url("/inside"), "raw")  # a redirect to an address not opened
    assert "'127.0.0.2' resolves to a loopback" in inside["error"]


def test_the_serpapi_key_reaches_no_result_recording_or_log(web_env, web, tmp_path, caplog):
    recording = tmp_path / "web"
    shown = [evalui_api(WebSearchOptions(provider="serpapi", record_dir=str(recording)), True)
             .search_engine_query("prices")]
    # A port bound and never listened on refuses connections, and stays ours while the search runs:
    # a port merely closed again could be taken by another test's server meanwhile (xdist workers).
    with socket.socket() as probe, caplog.at_level(logging.WARNING):
        probe.bind(("127.0.0.1", 0))
        web_env.setenv("EVALUI_SERPAPI_URL", f"http://127.0.0.1:{probe.getsockname()[1]}")
        failed = evalui_api(WebSearchOptions(provider="serpapi", record_dir=str(recording)), True) \
            .search_engine_query("unreachable engine")
    assert "Connection refused" in failed["error"] or "Max retries" in failed["error"]
    shown.append(failed)
    assert SERPAPI_KEY not in repr(shown) and "[redacted]" in failed["error"]
    assert "Error from SerpAPI" in caplog.text and SERPAPI_KEY not in caplog.text
    files = recording_files(recording)
    assert len(files) == 2 and not any(SERPAPI_KEY in f.read_text() or "api_key" in f.read_text() for f in files)


def test_concurrent_recorders_ask_the_web_once_per_page(web_env, web, tmp_path):
    options = WebSearchOptions(provider="serpapi", record_dir=str(tmp_path / "web"))
    apis = [evalui_api(options, True) for _ in range(6)]
    results: list = [None] * len(apis)

    def fetch(index):
        results[index] = apis[index].fetch_url_content(web.url("/page"), "truncate")

    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(len(apis))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert web.requests.count("/page") == 1  # the others waited for the first one's record
    assert all(r == results[0] for r in results) and "42 €" in results[0]["content"]
