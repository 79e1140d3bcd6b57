"""``web_search`` and ``web_fetch``: off unless the operator sets EVALUI_WEB_BACKEND.

The backend is pluggable: ``http`` is evalui's own (pages fetched directly, search through a
SearXNG-style JSON endpoint named by EVALUI_WEB_SEARCH_URL, with ``{query}`` in it), and
``module:attr`` names any object with ``search(query, limit) -> [{"title", "url", "snippet"}]`` and
``fetch(url) -> str``. Whatever fails (no network, a refused address, a bad page) comes back to the
model as an error result; the run goes on.
"""

from __future__ import annotations

import json
import pkgutil
from html.parser import HTMLParser
from urllib.parse import quote_plus, urlsplit

from evalui.benchmarks.gaia import settings as gaia_settings
from evalui.benchmarks.gaia.tools import web_http
from evalui.benchmarks.gaia.tools.base import WEB_BACKEND_ENV, Tool, ToolContext, ToolResult
from evalui.endpoint.url_policy import RefusedURL
from evalui.errors import InputError
from evalui.settings import read

SEARCH_URL_ENV = "EVALUI_WEB_SEARCH_URL"
PAGE_CAP_CHARS = 20_000


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


def _host_port(url: str) -> frozenset[str]:
    parts = urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return frozenset()
    return frozenset({f"{parts.hostname}:{port}"}) if parts.hostname and port else frozenset()


def _deadline_from_env() -> float:
    return read("web_fetch_deadline_s")


class HttpWebBackend:
    """Pages fetched by evalui itself (web_http.get: public addresses, a deadline, a size cap)."""

    def __init__(self, search_url: str | None = None, deadline_s: float | None = None):
        self.search_url = search_url if search_url is not None else read("web_search_url")
        self.deadline_s = deadline_s or _deadline_from_env()

    def search(self, query: str, limit: int = 5) -> list[dict]:
        if not self.search_url:
            raise RuntimeError(f"no search engine is configured ({SEARCH_URL_ENV})")
        # The operator named the search engine, so its own host:port is reachable for searches (a
        # SearXNG on localhost is usual); web_fetch never gets that exception.
        body, _ = web_http.get(self.search_url.replace("{query}", quote_plus(query)),
                               allowed=_host_port(self.search_url), deadline_s=self.deadline_s)
        results = json.loads(body).get("results") or []
        return [{"title": r.get("title", ""), "url": r.get("url", ""), "snippet": r.get("content", "")}
                for r in results[:limit] if isinstance(r, dict)]

    def fetch(self, url: str) -> str:
        body, kind = web_http.get(url, deadline_s=self.deadline_s)
        if "html" in kind or body.lstrip()[:15].lower().startswith(("<!doctype", "<html")):
            parser = _Text()
            parser.feed(body)
            body = "\n".join(parser.parts)
        return body


def load_backend(spec: str | None = None):
    spec = (spec if spec is not None else gaia_settings.read("web_backend")).strip()
    if not spec:
        return None
    if spec == "http":
        return HttpWebBackend()
    if ":" not in spec:
        raise InputError(f"{WEB_BACKEND_ENV} is http or module:attr, not {spec!r}")
    try:
        target = pkgutil.resolve_name(spec)
    except (ImportError, AttributeError, ValueError) as exc:
        raise InputError(f"{WEB_BACKEND_ENV}: cannot load the web backend {spec!r} "
                         f"({type(exc).__name__}: {exc})") from None
    backend = target() if isinstance(target, type) else target
    if not all(callable(getattr(backend, method, None)) for method in ("search", "fetch")):
        raise InputError(f"{WEB_BACKEND_ENV}: {spec} has no search(query, limit) and fetch(url) methods")
    return backend


def _unavailable(exc: Exception) -> ToolResult:
    if isinstance(exc, web_http.FetchDeadline):
        return ToolResult(f"the page was not fetched: {exc}", error="timeout")
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
    text = "\n\n".join(f"{r.get('title', '')}\n{r.get('url', '')}\n{r.get('snippet', '')}" for r in results)
    return ToolResult(text[:PAGE_CAP_CHARS])


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
