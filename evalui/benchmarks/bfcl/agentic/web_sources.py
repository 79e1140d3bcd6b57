"""Where BFCL's web-search backend gets its answers: a search provider and the web, live, recorded or replayed.

bfcl's own ``WebSearchAPI`` code asks ``GoogleSearch(params).get_dict()`` for a search and
``requests.get(url, ...)`` for a page. ``WebSource`` answers both questions: a search through the
chosen provider (SerpAPI as upstream, a SearXNG-style JSON endpoint, or a ``module:attr`` object),
a page through evalui's web fetcher (public addresses only, checked on connect and on every
redirect, with a deadline and a size cap), each through the recording when there is one. Error
messages are scrubbed of the SerpAPI key and of query strings before bfcl, a log or a recording
sees them.
"""

from __future__ import annotations

import os
import pkgutil
import re
import threading

import requests
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers

from evalui.benchmarks.bfcl.agentic.web_record import (
    REDACTED,
    WebReplayMiss,
    WebStore,
    decode_body,
    encode_body,
    fetch_key,
    search_key,
)
from evalui.benchmarks.gaia.tools import web_http
from evalui.benchmarks.gaia.tools.web import HttpWebBackend
from evalui.endpoint.url_policy import RefusedURL
from evalui.errors import InputError

# A SearXNG or plug-in search returns every result it has: bfcl slices to max_results afterwards,
# so the recording's key need not hold it.
SEARCH_LIMIT = 100
SERPAPI_TIMEOUT_S = 30.0
# bfcl retries a rate-limited search forever (with back-off up to 120 s); evalui gives up after
# this many tries in a row, so a run cannot hang on an exhausted key.
RATE_LIMITED_TRIES = 5
_QUERY_STRING = re.compile(r"\?[^\s'\"()<>]*")


class RecordedWebError(Exception):
    """An error that happened while recording, raised again on replay with the same message."""


class RateLimitGaveUp(RuntimeError):
    pass


def scrub(message: str, secrets: tuple[str, ...], *, query_strings: bool = False) -> str:
    """The message without secrets, and without query strings if asked (a search request's URL
    carries the key there, in a form the plain key may not match)."""
    for secret in secrets:
        if secret:
            message = message.replace(secret, REDACTED)
    return _QUERY_STRING.sub(f"?{REDACTED}", message) if query_strings else message


def _rate_limited(answer: dict) -> bool:
    if "raised" in answer:
        return "429" in answer["raised"]
    return "429" in str(answer["payload"].get("error", ""))


def normalized_payload(payload) -> dict:
    """The part of a SerpAPI-shaped answer bfcl reads: organic results (title, link, snippet) or an error."""
    if not isinstance(payload, dict):
        return {"error": f"the search engine answered {type(payload).__name__}, not an object"}
    if "organic_results" in payload:
        results = payload["organic_results"] if isinstance(payload["organic_results"], list) else []
        return {"organic_results": [{k: r[k] for k in ("title", "link", "snippet") if k in r}
                                    for r in results if isinstance(r, dict)]}
    if "error" in payload:
        return {"error": str(payload["error"])}
    return {}


class SerpApiProvider:
    """SerpAPI, as bfcl asks it (its own client, its parameters); the base URL can be another server's."""

    name = "serpapi"

    def __init__(self, base_url: str):
        self.base_url = base_url.rstrip("/")

    def search(self, params: dict) -> dict:
        from serpapi import GoogleSearch

        client = GoogleSearch(dict(params))
        client.BACKEND = self.base_url  # construct_url reads it from the instance
        client.timeout = SERPAPI_TIMEOUT_S  # the library's default is 60,000 s
        return client.get_dict()


class SearxngProvider:
    """A SearXNG-style JSON endpoint (EVALUI_WEB_SEARCH_URL with ``{query}``), through the GAIA web
    tool's search; the region is not passed on (SearXNG has no DuckDuckGo region codes)."""

    name = "searxng"

    def __init__(self, search_url: str):
        self.backend = HttpWebBackend(search_url)

    def search(self, params: dict) -> dict:
        return {"organic_results": [{"title": r["title"], "link": r["url"], "snippet": r["snippet"]}
                                    for r in self.backend.search(params["q"], SEARCH_LIMIT)]}


class ModuleProvider:
    """A ``module:attr`` object (or class, built with no arguments), as the GAIA web tool takes one:
    ``search(query, limit) -> [{"title", "url", "snippet"}]`` and, optionally, ``fetch(url) -> str``
    (the page's HTML, which bfcl's modes then process); without ``fetch`` pages come from the web."""

    def __init__(self, spec: str):
        self.name = f"module:{spec}"
        try:
            target = pkgutil.resolve_name(spec)
        except (ImportError, AttributeError, ValueError) as exc:
            raise InputError(f"cannot load the web search backend {spec!r} ({type(exc).__name__}: {exc})") from None
        self.plugin = target() if isinstance(target, type) else target
        if not callable(getattr(self.plugin, "search", None)):
            raise InputError(f"the web search backend {spec} has no search(query, limit) method")

    def search(self, params: dict) -> dict:
        results = self.plugin.search(params["q"], SEARCH_LIMIT)
        if not isinstance(results, list):
            return {"error": f"the search backend answered {type(results).__name__}, not a list"}
        return {"organic_results": [{"title": r.get("title", ""), "link": r.get("url", ""),
                                     "snippet": r.get("snippet", "")} for r in results if isinstance(r, dict)]}

    def fetcher(self):
        fetch = getattr(self.plugin, "fetch", None)
        return fetch if callable(fetch) else None


def prepared_url(url: str) -> str:
    """The URL as requests would send it (IDNA host, re-quoted path), so the same text reaches the same page."""
    request = requests.models.PreparedRequest()
    request.prepare_url(url, None)
    return request.url


def as_requests_response(answer: dict) -> requests.Response:
    """A recorded page as the ``requests.Response`` bfcl reads: built as requests' own adapter builds
    one, so ``.text`` guesses the encoding and ``raise_for_status`` words its error as requests does."""
    response = requests.Response()
    response.status_code = answer["status"]
    response.reason = answer["reason"]
    response.url = answer["url"]
    response.headers = CaseInsensitiveDict({"content-type": answer["content_type"]} if answer["content_type"] else {})
    response.encoding = get_encoding_from_headers(response.headers)
    response._content = decode_body(answer)
    return response


class WebSource:
    """One conversation's web: searches and pages, live, recorded (``store``) or replayed (``replay``)."""

    def __init__(self, provider, *, store: WebStore | None = None, replay: bool = False,
                 deadline_s: float = web_http.DEADLINE_S, secrets: tuple[str, ...] = ()):
        self.provider = provider
        self.store = store
        self.replay = replay
        self.deadline_s = deadline_s
        self.secrets = tuple(s for s in secrets if s)
        # The kinds of web errors the model was shown (web_replay_miss, web_refused, web_timeout,
        # web_fetch_error, web_search_error, web_rate_limited), for the player's error types.
        self.failures: list[str] = []
        self._rate_limited = 0
        self._lock = threading.Lock()

    # --- searches ---
    def search(self, params: dict) -> dict:
        """The answer to bfcl's ``GoogleSearch(params).get_dict()`` (params: engine, q, kl, api_key)."""
        answer = self._answer(search_key(params.get("q"), params.get("kl")), lambda: self._ask_search(params),
                              keep=lambda a: not _rate_limited(a))
        with self._lock:
            self._rate_limited = self._rate_limited + 1 if _rate_limited(answer) else 0
            if self._rate_limited >= RATE_LIMITED_TRIES:
                self._rate_limited = 0
                self.failures.append("web_rate_limited")
                raise RateLimitGaveUp(f"the search engine refused {RATE_LIMITED_TRIES} times in a row for too many "
                                      "requests; evalui gave up on this search")
        if "raised" in answer:
            if not _rate_limited(answer):  # bfcl retries those
                self.failures.append(answer.get("kind", "web_search_error"))
            raise RecordedWebError(answer["raised"])
        return dict(answer["payload"])

    def _ask_search(self, params: dict) -> dict:
        try:
            return {"payload": normalized_payload(self.provider.search(params))}
        except Exception as exc:  # bfcl reports any failure of the search to the model
            return {"raised": scrub(str(exc), self.secrets, query_strings=True), "kind": "web_search_error"}

    # --- pages ---
    def fetch(self, url: str, headers: dict | None = None) -> requests.Response:
        """The answer to bfcl's ``requests.get(url, headers=...)``."""
        answer = self._answer(fetch_key(url), lambda: self._ask_fetch(url, headers))
        if "raised" in answer:
            self.failures.append(answer.get("kind", "web_fetch_error"))
            raise RecordedWebError(answer["raised"])
        return as_requests_response(answer["response"])

    def _ask_fetch(self, url: str, headers: dict | None) -> dict:
        try:
            target = prepared_url(url)
            fetcher = getattr(self.provider, "fetcher", lambda: None)()
            if fetcher is not None:
                body = str(fetcher(target)).encode("utf-8")
                return {"response": {"url": target, "status": 200, "reason": "OK",
                                     "content_type": "text/html; charset=utf-8", **encode_body(body)}}
            page = web_http.fetch(target, deadline_s=self.deadline_s, headers=headers)
        except Exception as exc:  # bfcl reports any failure of the fetch to the model
            kind = ("web_refused" if isinstance(exc, RefusedURL) else
                    "web_timeout" if isinstance(exc, web_http.FetchDeadline) else "web_fetch_error")
            return {"raised": scrub(str(exc), self.secrets), "kind": kind}
        content_type = next((value for name, value in page.headers if name.lower() == "content-type"), "")
        return {"response": {"url": page.url, "status": page.status, "reason": page.reason,
                             "content_type": content_type, **encode_body(page.body)}}

    # --- the recording ---
    def _answer(self, key: dict, ask, keep=lambda answer: True) -> dict:
        if self.replay:
            answer = self.store.get(key)
            if answer is None:
                self.failures.append("web_replay_miss")
                raise WebReplayMiss(f"the web recording has no answer for this {key['kind']} "
                                    "(a replayed run never goes online)")
            return answer
        if self.store is None:
            return ask()
        with self.store.lock(key):
            answer = self.store.get(key)
            if answer is None:
                answer = ask()
                if keep(answer):
                    self.store.put(key, answer, self.provider.name)
        return answer


def serpapi_key() -> str:
    return os.environ.get("SERPAPI_API_KEY", "").strip()
