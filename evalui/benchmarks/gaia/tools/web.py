"""``web_search`` and ``web_fetch``: off unless the operator sets EVALUI_WEB_BACKEND.

The backend is pluggable: ``http`` is evalui's own (pages fetched directly, search through a
SearXNG-style JSON endpoint named by EVALUI_WEB_SEARCH_URL, with ``{query}`` in it), and
``module:attr`` names any object with ``search(query, limit) -> [{"title", "url", "snippet"}]`` and
``fetch(url) -> str``. Whatever fails (no network, a refused address, a bad page) comes back to the
model as an error result; the run goes on.
"""

from __future__ import annotations

import importlib
import json
import os
import urllib.error
import urllib.request
from html.parser import HTMLParser
from urllib.parse import quote_plus, urlsplit, urlunsplit

from evalui.benchmarks.gaia.tools.base import WEB_BACKEND_ENV, Tool, ToolContext, ToolResult
from evalui.engine.url_policy import RefusedURL, check_base_url

SEARCH_URL_ENV = "EVALUI_WEB_SEARCH_URL"
FETCH_TIMEOUT_S = 10.0
FETCH_CAP_BYTES = 2 * 1024 * 1024
PAGE_CAP_CHARS = 20_000


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # every hop would need the address check again: the model is told where it goes instead


class _Text(HTMLParser):
    SKIP = {"script", "style", "noscript", "template"}

    def __init__(self):
        super().__init__()
        self.parts, self._skipping = [], 0

    def handle_starttag(self, tag, attrs):
        self._skipping += tag in self.SKIP

    def handle_endtag(self, tag):
        self._skipping -= tag in self.SKIP and self._skipping > 0

    def handle_data(self, data):
        if not self._skipping and data.strip():
            self.parts.append(data.strip())


def _public(url: str) -> str:
    parts = urlsplit(url)
    # The address policy of shared deployments, always: no loopback, private or link-local pages.
    check_base_url(urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), shared=True)
    return url


def _get(url: str) -> tuple[str, str]:
    opener = urllib.request.build_opener(_NoRedirect)
    request = urllib.request.Request(_public(url), headers={"user-agent": "evalui-gaia-agent"})
    try:
        with opener.open(request, timeout=FETCH_TIMEOUT_S) as response:
            data = response.read(FETCH_CAP_BYTES + 1)
            kind = response.headers.get("content-type", "")
    except urllib.error.HTTPError as exc:
        if 300 <= exc.code < 400 and exc.headers.get("location"):
            return f"(the page redirects to {exc.headers['location']}; fetch that address)", "text/plain"
        raise
    return data[:FETCH_CAP_BYTES].decode("utf-8", errors="replace"), kind


class HttpWebBackend:
    def __init__(self, search_url: str | None = None):
        self.search_url = search_url if search_url is not None else os.environ.get(SEARCH_URL_ENV, "")

    def search(self, query: str, limit: int = 5) -> list[dict]:
        if not self.search_url:
            raise RuntimeError(f"no search engine is configured ({SEARCH_URL_ENV})")
        body, _ = _get(self.search_url.replace("{query}", quote_plus(query)))
        results = json.loads(body).get("results") or []
        return [{"title": r.get("title", ""), "url": r.get("url", ""), "snippet": r.get("content", "")}
                for r in results[:limit] if isinstance(r, dict)]

    def fetch(self, url: str) -> str:
        body, kind = _get(url)
        if "html" in kind or body.lstrip()[:15].lower().startswith(("<!doctype", "<html")):
            parser = _Text()
            parser.feed(body)
            body = "\n".join(parser.parts)
        return body


def load_backend(spec: str | None = None):
    spec = (spec if spec is not None else os.environ.get(WEB_BACKEND_ENV, "")).strip()
    if not spec:
        return None
    if spec == "http":
        return HttpWebBackend()
    module, _, attribute = spec.partition(":")
    target = getattr(importlib.import_module(module), attribute)
    return target() if isinstance(target, type) else target


def _unavailable(exc: Exception) -> ToolResult:
    reason = str(exc) if isinstance(exc, RefusedURL) else f"{type(exc).__name__}: {exc}"
    return ToolResult(f"the web is not available: {reason[:300]}", error="web_unavailable")


def _search(arguments: dict, context: ToolContext) -> ToolResult:
    query = arguments.get("query")
    if not isinstance(query, str) or not query.strip():
        return ToolResult("web_search needs a non-empty string `query`", error="bad_arguments")
    try:
        results = context.web.search(query.strip(), 5)
    except Exception as exc:  # a backend's failure is the model's information, not the run's end
        return _unavailable(exc)
    if not results:
        return ToolResult("no results")
    return ToolResult("\n\n".join(f"{r.get('title', '')}\n{r.get('url', '')}\n{r.get('snippet', '')}" for r in results))


def _fetch(arguments: dict, context: ToolContext) -> ToolResult:
    url = arguments.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return ToolResult("web_fetch needs an http(s) `url`", error="bad_arguments")
    try:
        text = context.web.fetch(url)
    except Exception as exc:
        return _unavailable(exc)
    if len(text) > PAGE_CAP_CHARS:
        text = text[:PAGE_CAP_CHARS] + f"\n… (truncated: the page has {len(text)} characters)"
    return ToolResult(text)


def web_tools() -> list[Tool]:
    return [
        Tool("web_search", "Search the web; returns titles, addresses and snippets.",
             {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}, _search),
        Tool("web_fetch", "Fetch a web page and return its text.",
             {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}, _fetch),
    ]
