"""BFCL web search, in process: the recording's store and hash, the answers it rebuilds, the options'
checks, and the class bfcl's multi-turn machinery gets (its methods and docs are bfcl's)."""

from __future__ import annotations

import pytest

from evalui.benchmarks.bfcl.agentic.web_record import (
    WebStore,
    fetch_key,
    key_digest,
    recording_files,
    recording_hash,
    search_key,
)
from evalui.benchmarks.bfcl.agentic.web_search import (
    WebSearchOptions,
    _checked_official,
    check_web_options,
    web_provenance,
    web_search_class,
)
from evalui.benchmarks.bfcl.agentic.web_sources import (
    RATE_LIMITED_TRIES,
    RateLimitGaveUp,
    RecordedWebError,
    WebSource,
    as_requests_response,
    normalized_payload,
    scrub,
)
from evalui.errors import InputError

pytestmark = pytest.mark.unit
KEY = "serp-unit-key-5b1f09d3"
PAGE = {"url": "https://example.org/a", "status": 200, "reason": "OK", "content_type": "text/html; charset=utf-8",
        "body": "<p>Grüße</p>"}


@pytest.fixture
def env(monkeypatch):
    for name in ("EVALUI_BFCL_WEB_SEARCH", "EVALUI_WEB_SEARCH_URL", "SERPAPI_API_KEY", "EVALUI_SERPAPI_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_keys_hold_only_what_the_model_chose():
    assert search_key("q", "wt-wt") == {"kind": "search", "q": "q", "kl": "wt-wt"}
    assert fetch_key("https://x.org") == {"kind": "fetch", "url": "https://x.org"}
    assert key_digest(search_key("q", "wt-wt")) == key_digest({"kl": "wt-wt", "q": "q", "kind": "search"})
    assert key_digest(search_key("q", "wt-wt")) != key_digest(search_key("q", "de-de"))


def test_the_store_keeps_answers_without_secrets_and_its_hash_names_its_content(tmp_path):
    first, second = WebStore(tmp_path / "a", secrets=(KEY,)), WebStore(tmp_path / "b")
    answers = [(search_key("x", "wt-wt"), {"payload": {"error": f"bad key {KEY}"}}),
               (fetch_key("https://example.org/a"), {"response": PAGE})]
    for key, answer in answers:
        first.put(key, answer, "serpapi")
    for key, answer in reversed(answers):  # another order, the same content
        second.put(key, {"payload": {"error": f"bad key {KEY}"}} if key["kind"] == "search" else answer, "serpapi")
    assert first.get(answers[0][0]) == {"payload": {"error": "bad key [redacted]"}}
    assert first.get(answers[1][0]) == {"response": PAGE} and first.get(fetch_key("https://other.org")) is None
    assert not any(KEY in path.read_text() for path in recording_files(tmp_path / "a"))
    with first.lock(answers[0][0]):  # lock files are not part of the recording
        pass
    assert len(recording_files(tmp_path / "a")) == 2
    assert recording_hash(tmp_path / "a") == recording_hash(tmp_path / "a")
    assert recording_hash(tmp_path / "a") != recording_hash(tmp_path / "b")  # b kept the key: other content
    second.put(answers[0][0], {"payload": {"error": "bad key [redacted]"}}, "serpapi")
    assert recording_hash(tmp_path / "a") == recording_hash(tmp_path / "b")

    search_file = tmp_path / "a" / "search" / f"{key_digest(answers[0][0])}.json"
    search_file.rename(search_file.with_name(f"{key_digest(search_key('y', 'wt-wt'))}.json"))
    assert first.get(search_key("y", "wt-wt")) is None  # a renamed file answers nothing


def test_a_recorded_page_is_the_response_requests_would_have_built():
    response = as_requests_response(PAGE)
    assert response.text == "<p>Grüße</p>" and response.encoding == "utf-8"
    latin = as_requests_response(PAGE | {"content_type": "text/html", "body_base64": "R3L832U=", "body": None})
    assert latin.encoding == "ISO-8859-1" and latin.text == "Grüße"
    gone = as_requests_response(PAGE | {"status": 410, "reason": "Gone", "body": ""})
    with pytest.raises(Exception, match="^410 Client Error: Gone for url: https://example.org/a$"):
        gone.raise_for_status()


def test_payloads_keep_what_bfcl_reads_and_messages_lose_secrets():
    organic = {"organic_results": [{"position": 1, "title": "t", "link": "l", "snippet": "s", "favicon": "f"},
                                   {"title": "no snippet", "link": "m"}, "junk"], "search_metadata": {"id": 1}}
    assert normalized_payload(organic) == {"organic_results": [{"title": "t", "link": "l", "snippet": "s"},
                                                               {"title": "no snippet", "link": "m"}]}
    assert normalized_payload({"error": "Invalid API key."}) == {"error": "Invalid API key."}
    assert normalized_payload({"search_metadata": {}}) == {} and "error" in normalized_payload([1])
    message = f"Max retries exceeded with url: /search?engine=duckduckgo&q=x&api_key={KEY} (Caused by ...)"
    assert scrub(message, (KEY,), query_strings=True) == \
        "Max retries exceeded with url: /search?[redacted] (Caused by ...)"
    assert scrub(f"key {KEY}", (KEY,)) == "key [redacted]"


class RateLimited:
    name = "test"
    asked = 0

    def search(self, params):
        self.asked += 1
        raise RuntimeError("429 Client Error: Too Many Requests")


def test_a_rate_limited_search_is_not_recorded_and_evalui_gives_up_where_bfcl_would_retry_forever(tmp_path):
    provider = RateLimited()
    source = WebSource(provider, store=WebStore(tmp_path))
    for _ in range(RATE_LIMITED_TRIES - 1):
        with pytest.raises(RecordedWebError, match="429"):  # bfcl sees the 429 and retries
            source.search({"q": "x", "kl": "wt-wt"})
    with pytest.raises(RateLimitGaveUp) as gave_up:
        source.search({"q": "x", "kl": "wt-wt"})
    assert "429" not in str(gave_up.value)  # or bfcl would retry it too
    assert provider.asked == RATE_LIMITED_TRIES and recording_files(tmp_path) == []
    assert source.failures == ["web_rate_limited"]


def test_options_are_checked_before_a_run(env, tmp_path):
    with pytest.raises(InputError, match="SERPAPI_API_KEY"):
        check_web_options()
    env.setenv("EVALUI_WEB_SEARCH_URL", "http://127.0.0.1:8888/search?format=json")
    with pytest.raises(InputError, match=r"\{query\}"):
        check_web_options()  # picked searxng, whose URL has no {query}
    env.setenv("EVALUI_WEB_SEARCH_URL", "http://127.0.0.1:8888/search?q={query}&format=json")
    assert check_web_options().provider == "searxng"
    env.setenv("SERPAPI_API_KEY", KEY)
    assert check_web_options().provider == "serpapi"
    env.setenv("EVALUI_BFCL_WEB_SEARCH", "searxng")
    assert check_web_options().provider == "searxng"
    assert check_web_options(WebSearchOptions(provider="serpapi")).provider == "serpapi"
    for bad, message in [(WebSearchOptions(provider="bing"), "serpapi, searxng or module:attr"),
                         (WebSearchOptions(provider="no_such_module_x:web"), "cannot load"),
                         (WebSearchOptions(provider="json:dumps"), "no search"),
                         (WebSearchOptions(record_dir="a", replay_dir="b"), "together"),
                         (WebSearchOptions(replay_dir=str(tmp_path)), "holds no web recording")]:
        with pytest.raises(InputError, match=message):
            check_web_options(bad)
    WebStore(tmp_path).put(search_key("x", "wt-wt"), {"payload": {}}, "serpapi")
    replay = check_web_options(WebSearchOptions(replay_dir=str(tmp_path)))
    assert replay.provider == "replay" and replay.mode == "replay"
    assert web_provenance(replay) == {"web_backend": "replay", "web_mode": "replay", "web_recording": str(tmp_path),
                                      "web_recording_sha256": recording_hash(tmp_path), "web_recording_entries": 1}
    assert web_provenance(check_web_options()) == {"web_backend": "searxng", "web_mode": "live"}


def test_the_class_is_bfcls_with_its_methods_docs_and_scenario():
    import inspect

    from bfcl_eval.utils import load_dataset_entry, populate_initial_settings_for_web_search_test_cases

    cls = web_search_class()
    official = cls.__mro__[1]
    assert official.__name__ == "WebSearchAPI" and official.__module__.startswith("bfcl_eval.")

    def public(c):
        return {n for n, _ in inspect.getmembers(c, inspect.isfunction) if not n.startswith("_")}

    assert public(cls) == public(official) == {"search_engine_query", "fetch_url_content"}
    for name in public(cls):
        assert getattr(cls, name).__doc__ == getattr(official, name).__doc__
        assert inspect.signature(getattr(cls, name)) == inspect.signature(getattr(official, name))
    (entry,) = populate_initial_settings_for_web_search_test_cases(load_dataset_entry("web_search_no_snippet")[:1])
    assert entry["involved_classes"] == ["WebSearchAPI"]
    assert {f["name"] for f in entry["function"]} == public(cls)
    api = cls(WebSource(None))
    api._load_scenario(entry["initial_config"]["WebSearchAPI"])
    assert api.show_snippet is False


def test_a_bfcl_whose_methods_reach_the_network_another_way_is_refused(tmp_path):
    import importlib.util

    path = tmp_path / "fake_web_search.py"  # a bfcl whose fetch went through another HTTP library
    path.write_text("import os, random, time\nGoogleSearch = requests = html2text = BeautifulSoup = None\n"
                    "httpx = object()\n"
                    "class WebSearchAPI:\n"
                    "    def search_engine_query(self, keywords):\n        return GoogleSearch(os, random, time)\n"
                    "    def fetch_url_content(self, url):\n        return httpx.get(url)\n")
    spec = importlib.util.spec_from_file_location("fake_web_search", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # only inspected: its methods are never called
    with pytest.raises(RuntimeError, match=r"fetch_url_content uses \['httpx'\]"):
        _checked_official(module)
